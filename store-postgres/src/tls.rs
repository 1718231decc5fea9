//! TLS to the database: rustls (the ring provider, as the rest of hwf),
//! used whenever the connection's `sslmode` asks for it (`prefer`, the
//! default, or `require`; `disable` connects in plain text; a Unix socket
//! never uses TLS).
//!
//! The server's certificate and name are always verified (what libpq calls
//! `verify-full`: a certificate hwf cannot verify is refused, never used
//! unverified): against the CA certificates of the `sslrootcert` file when
//! the connection string names one, else against the web PKI roots. The
//! `sslrootcert` parameter is read here and taken out of the string, which
//! tokio-postgres parses without it.

use crate::invalid_config;
use hwf_core::store::StoreResult;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

/// The connector every connection of a store uses.
pub(crate) type Connector = MakeRustlsConnect;

/// `url` without its `sslrootcert` parameter (and with libpq's
/// `verify-full`/`verify-ca` as `require`, which verifies as fully here),
/// and the connector that verifies servers with that file's CAs (or the web
/// PKI roots).
///
/// # Errors
///
/// `invalid_config` for an `sslrootcert` that cannot be read or holds no
/// certificate.
pub(crate) fn connector(url: &str) -> StoreResult<(String, Connector)> {
    let (rest, root_cert) = take_root_cert(url);
    // libpq's verifying modes are what every TLS connection here does;
    // tokio-postgres knows them as `require`.
    let rest = rest
        .replace("sslmode=verify-full", "sslmode=require")
        .replace("sslmode=verify-ca", "sslmode=require");
    let mut roots = rustls::RootCertStore::empty();
    match &root_cert {
        Some(path) => {
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .and_then(|it| it.collect::<Result<_, _>>())
                .map_err(|e| invalid_config(format!("sslrootcert {path}: {e}")))?;
            if certs.is_empty() {
                return Err(invalid_config(format!("sslrootcert {path}: no PEM certificate in it")));
            }
            for cert in certs {
                roots
                    .add(cert)
                    .map_err(|e| invalid_config(format!("sslrootcert {path}: {e}")))?;
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid_config(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok((rest, MakeRustlsConnect::new(config)))
}

/// Split the `sslrootcert` parameter off a connection string, in either
/// form: `postgres://…?sslrootcert=/ca.pem&…` (percent-decoded) or
/// `host=… sslrootcert=/ca.pem …`.
fn take_root_cert(url: &str) -> (String, Option<String>) {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let Some((base, query)) = url.split_once('?') else {
            return (url.to_owned(), None);
        };
        let mut found = None;
        let kept: Vec<&str> = query
            .split('&')
            .filter(|p| match p.strip_prefix("sslrootcert=") {
                Some(v) => {
                    found = Some(percent_decode(v));
                    false
                }
                None => true,
            })
            .collect();
        let rest = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        return (rest, found);
    }
    let mut found = None;
    let kept: Vec<&str> = url
        .split_whitespace()
        .filter(|p| match p.strip_prefix("sslrootcert=") {
            Some(v) => {
                found = Some(v.trim_matches('\'').to_owned());
                false
            }
            None => true,
        })
        .collect();
    (kept.join(" "), found)
}

/// `%XX` escapes decoded (what a URL's query may hold); anything else kept.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|&b| hex(b)),
                bytes.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_cert_is_taken_out_of_either_form() {
        assert_eq!(
            take_root_cert("postgres://hwf@db:5432/hwf?sslmode=require&sslrootcert=%2Fetc%2Fca.pem&application_name=x"),
            (
                "postgres://hwf@db:5432/hwf?sslmode=require&application_name=x".to_owned(),
                Some("/etc/ca.pem".to_owned())
            )
        );
        assert_eq!(
            take_root_cert("postgresql://db/hwf?sslrootcert=/ca.pem"),
            ("postgresql://db/hwf".to_owned(), Some("/ca.pem".to_owned()))
        );
        assert_eq!(
            take_root_cert("host=db sslmode=require sslrootcert='/ca.pem' dbname=hwf"),
            (
                "host=db sslmode=require dbname=hwf".to_owned(),
                Some("/ca.pem".to_owned())
            )
        );
        assert_eq!(
            take_root_cert("host=/tmp/s dbname=x"),
            ("host=/tmp/s dbname=x".to_owned(), None)
        );
        assert_eq!(percent_decode("a%2"), "a%2");
    }

    #[test]
    fn a_root_cert_file_that_is_missing_or_empty_is_a_config_error() {
        let dir = std::env::temp_dir().join(format!("hwf-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").expect("write");
        for url in [
            format!("host=db sslrootcert={}", dir.join("missing.pem").display()),
            format!("host=db sslrootcert={}", empty.display()),
        ] {
            let Err(e) = connector(&url) else {
                panic!("{url}: accepted");
            };
            let e = hwf_core::error::Error::from(e);
            assert_eq!(e.code(), hwf_core::error::ErrorCode::InvalidConfig, "{e}");
            assert!(e.message().contains("sslrootcert"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(connector("host=db").is_ok(), "the web PKI roots by default");
        let (rest, _) = connector("host=db sslmode=verify-full").expect("verify-full");
        assert_eq!(rest, "host=db sslmode=require");
        assert!(rest.parse::<tokio_postgres::Config>().is_ok());
    }
}

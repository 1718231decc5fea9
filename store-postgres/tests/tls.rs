//! TLS to the database, against the test cluster's TLS listener
//! (scripts/pg-test-cluster.sh: 127.0.0.1 with a throwaway CA in
//! `<cluster dir>/tls/ca.pem`, plain TCP refused by `pg_hba.conf`): a
//! server verified with `sslrootcert` is reached in either connection
//! string form, by name and by address; a server hwf cannot verify is
//! refused with the reason; `sslmode=disable` is refused by the server.
//! Through a relay on 127.0.0.2 (not a name the certificate holds): the
//! wrong name is refused in every TLS mode, and a server that speaks plain
//! TCP only is never used when TLS is required.

mod common;

use hwf_core::error::Error;
use hwf_store_postgres::{PgConfig, PgStore};

/// The cluster's TLS port and CA file, or `None` when it has no TLS
/// listener (a cluster started without openssl).
fn tls(test: &str) -> Option<(String, String)> {
    let url = common::url(test)?;
    let field = |key: &str| {
        url.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key))
            .map(str::to_owned)
    };
    let (dir, port) = (field("host=")?, field("port=")?);
    let ca = format!("{dir}/tls/ca.pem");
    if !std::path::Path::new(&ca).is_file() {
        assert!(
            std::env::var("HWF_REQUIRE_CLIENTS").as_deref() != Ok("1"),
            "{test}: the test cluster has no TLS listener ({ca})"
        );
        println!("skipped {test}: the test cluster has no TLS listener");
        return None;
    }
    Some((port, ca))
}

async fn connect(url: String) -> Result<PgStore, Error> {
    let mut config = PgConfig::new(url);
    config.schema = Some(format!("hwf_tls_{}", uuid::Uuid::now_v7().simple()));
    config.reconnect = std::time::Duration::ZERO;
    PgStore::connect(config).await.map_err(Error::from)
}

#[tokio::test]
async fn a_verified_server_is_reached_over_tls_and_an_unverified_one_is_refused() {
    let Some((port, ca)) = tls("a_verified_server_is_reached_over_tls_and_an_unverified_one_is_refused") else {
        return;
    };
    // Plain TCP is refused by the server, so each success went over TLS.
    for url in [
        format!("host=localhost port={port} user=hwf dbname=postgres sslmode=require sslrootcert={ca}"),
        format!("host=127.0.0.1 port={port} user=hwf dbname=postgres sslrootcert={ca}"),
        format!("host=localhost port={port} user=hwf dbname=postgres sslmode=verify-full sslrootcert={ca}"),
        format!(
            "postgresql://hwf@localhost:{port}/postgres?sslmode=require&sslrootcert={}",
            ca.replace('/', "%2F")
        ),
    ] {
        let store = connect(url.clone()).await.unwrap_or_else(|e| panic!("{url}: {e}"));
        assert!(store.schema_version().await.is_ok(), "{url}");
    }
    // Not signed by a CA hwf trusts (the web PKI roots by default).
    let unverified = connect(format!(
        "host=localhost port={port} user=hwf dbname=postgres sslmode=require"
    ))
    .await
    .expect_err("an unverifiable certificate is refused");
    assert!(
        unverified.message().to_lowercase().contains("certificate") && unverified.message().contains("sslrootcert="),
        "the reason and the way on are named: {unverified}"
    );
    // The server wants TLS; without it, the server's refusal is reported.
    let plain = connect(format!(
        "host=127.0.0.1 port={port} user=hwf dbname=postgres sslmode=disable"
    ))
    .await
    .expect_err("plain TCP is refused");
    assert!(plain.message().contains("no encryption"), "{plain}");
}

/// A byte-for-byte TCP relay on 127.0.0.2 (a name the cluster's
/// certificate does not hold) to `target`: the cluster's TLS port, or its
/// Unix socket (where the server speaks plain only, as a stripping
/// man-in-the-middle would). Returns the relay's port.
fn relay(target: Target) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.2:0").expect("bind 127.0.0.2");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let target = target.clone();
            std::thread::spawn(move || {
                let pipe = |mut from: Box<dyn std::io::Read + Send>, mut to: Box<dyn std::io::Write + Send>| {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                    })
                };
                let (cr, cw) = (client.try_clone().expect("clone"), client);
                match target {
                    Target::Tcp(port) => {
                        let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
                            return;
                        };
                        let sw = server.try_clone().expect("clone");
                        pipe(Box::new(cr), Box::new(sw));
                        pipe(Box::new(server), Box::new(cw));
                    }
                    Target::Unix(path) => {
                        let Ok(server) = std::os::unix::net::UnixStream::connect(&path) else {
                            return;
                        };
                        let sw = server.try_clone().expect("clone");
                        pipe(Box::new(cr), Box::new(sw));
                        pipe(Box::new(server), Box::new(cw));
                    }
                }
            });
        }
    });
    port
}

#[derive(Clone)]
enum Target {
    Tcp(u16),
    Unix(String),
}

#[tokio::test]
async fn a_wrong_server_name_and_a_plain_only_server_are_refused() {
    let Some((port, ca)) = tls("a_wrong_server_name_and_a_plain_only_server_are_refused") else {
        return;
    };
    let dir = ca.trim_end_matches("/tls/ca.pem").to_owned();
    // The real TLS server, reached as 127.0.0.2: its certificate names
    // localhost and 127.0.0.1 only. Asking for TLS in any mode (`prefer`,
    // the default, included) is refused on the name.
    let tls_relay = relay(Target::Tcp(port.parse().expect("port")));
    for mode in ["", " sslmode=prefer", " sslmode=require", " sslmode=verify-full"] {
        let url = format!("host=127.0.0.2 port={tls_relay} user=hwf dbname=postgres sslrootcert={ca}{mode}");
        let e = connect(url.clone())
            .await
            .err()
            .unwrap_or_else(|| panic!("{url}: a certificate for another name was accepted"));
        let m = e.message().to_lowercase();
        assert!(
            m.contains("certificate") || m.contains("name"),
            "{url}: the reason is named: {e}"
        );
    }
    // A server that takes plain TCP only (the socket behind a relay): it
    // is reachable in plain...
    let plain_relay = relay(Target::Unix(format!("{dir}/.s.PGSQL.{port}")));
    let plain = connect(format!(
        "host=127.0.0.2 port={plain_relay} user=hwf dbname=postgres sslmode=disable"
    ))
    .await
    .unwrap_or_else(|e| panic!("the relay takes plain TCP: {e}"));
    assert!(plain.schema_version().await.is_ok());
    // ...and `require` never falls back to it.
    for mode in ["sslmode=require", "sslmode=verify-full"] {
        let url = format!("host=127.0.0.2 port={plain_relay} user=hwf dbname=postgres sslrootcert={ca} {mode}");
        let e = connect(url.clone())
            .await
            .err()
            .unwrap_or_else(|| panic!("{url}: fell back to plain TCP"));
        assert!(
            e.message().to_lowercase().contains("tls") || e.message().to_lowercase().contains("ssl"),
            "{url}: {e}"
        );
    }
}

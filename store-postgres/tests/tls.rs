//! TLS to the database, against the test cluster's TLS listener
//! (scripts/pg-test-cluster.sh: 127.0.0.1 with a throwaway CA in
//! `<cluster dir>/tls/ca.pem`, plain TCP refused by `pg_hba.conf`): a
//! server verified with `sslrootcert` is reached in either connection
//! string form, by name and by address; a server hwf cannot verify is
//! refused with the reason; `sslmode=disable` is refused by the server.
//! On 127.0.0.2 the same server also takes plain TCP and is not a name its
//! certificate holds: hwf refuses the wrong name in every TLS mode and
//! never falls back to plain TCP for it.

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

#[tokio::test]
async fn a_wrong_server_name_is_refused_even_where_plain_tcp_is_accepted() {
    let Some((port, ca)) = tls("a_wrong_server_name_is_refused_even_where_plain_tcp_is_accepted") else {
        return;
    };
    // The listener on 127.0.0.2 accepts plain TCP (so a client that fell
    // back to it would get in)...
    let plain = connect(format!(
        "host=127.0.0.2 port={port} user=hwf dbname=postgres sslmode=disable"
    ))
    .await
    .unwrap_or_else(|e| panic!("127.0.0.2 takes plain TCP: {e}"));
    assert!(plain.schema_version().await.is_ok());
    // ...and its certificate names localhost and 127.0.0.1 only: with a
    // trusted CA, asking for TLS (`prefer`, the default, as well as
    // `require` and `verify-full`) is refused on the name, not downgraded.
    for mode in ["", " sslmode=prefer", " sslmode=require", " sslmode=verify-full"] {
        let url = format!("host=127.0.0.2 port={port} user=hwf dbname=postgres sslrootcert={ca}{mode}");
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
}

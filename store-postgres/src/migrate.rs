//! Versioned migrations: the SQL files under `migrations/`, applied in
//! order inside one transaction, each recorded in `hwf_schema_migrations`.

use crate::{db_err, invalid_config};
use hwf_core::store::StoreResult;

/// One migration shipped with the crate.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// Its version (the file's number; applied ascending).
    pub version: u32,
    /// Its name (the file's name after the number).
    pub name: &'static str,
    /// The SQL.
    pub sql: &'static str,
}

/// Every migration, ascending by version.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "init",
        sql: include_str!("../migrations/0001_init.sql"),
    },
    Migration {
        version: 2,
        name: "work_notify",
        sql: include_str!("../migrations/0002_work_notify.sql"),
    },
    Migration {
        version: 3,
        name: "payload_chunks",
        sql: include_str!("../migrations/0003_payload_chunks.sql"),
    },
    Migration {
        version: 4,
        name: "triggers",
        sql: include_str!("../migrations/0004_triggers.sql"),
    },
    Migration {
        version: 5,
        name: "kanban",
        sql: include_str!("../migrations/0005_kanban.sql"),
    },
    Migration {
        version: 6,
        name: "event_digests",
        sql: include_str!("../migrations/0006_event_digests.sql"),
    },
    Migration {
        version: 7,
        name: "snapshot_text",
        sql: include_str!("../migrations/0007_snapshot_text.sql"),
    },
];

/// A schema name hwf accepts: lower-case ASCII letters, digits and `_`,
/// not starting with a digit, at most 63 bytes (so it needs no quoting).
pub(crate) fn check_schema_name(schema: &str) -> StoreResult<()> {
    let ok = !schema.is_empty()
        && schema.len() <= 63
        && !schema.starts_with(|c: char| c.is_ascii_digit())
        && schema
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(invalid_config(format!(
            "PostgreSQL schema {schema:?}: use lower-case letters, digits and _ (at most 63)"
        )))
    }
}

const CREATE_TABLE: &str = "CREATE TABLE IF NOT EXISTS hwf_schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)";

/// The versions applied to the database (empty before the first
/// migration).
pub(crate) async fn applied(client: &tokio_postgres::Client) -> StoreResult<Vec<u32>> {
    let exists = client
        .query_one("SELECT to_regclass('hwf_schema_migrations') IS NOT NULL", &[])
        .await
        .map_err(|e| db_err("read the schema version", e))?;
    if !exists.get::<_, bool>(0) {
        return Ok(Vec::new());
    }
    let rows = client
        .query("SELECT version FROM hwf_schema_migrations ORDER BY version", &[])
        .await
        .map_err(|e| db_err("read the schema version", e))?;
    Ok(rows.iter().map(|r| r.get::<_, i32>(0).unsigned_abs()).collect())
}

/// Apply the missing migrations (all in one transaction, serialised
/// against other migrating processes by an advisory lock, and the
/// migrations table's lock).
pub(crate) async fn migrate(client: &mut tokio_postgres::Client, schema: Option<&str>) -> StoreResult<Vec<u32>> {
    let what = "migrate the PostgreSQL store";
    let tx = client.transaction().await.map_err(|e| db_err(what, e))?;
    // Processes migrating one database at once (runners started together
    // on a fresh database) take turns: `CREATE … IF NOT EXISTS` is not safe
    // against a concurrent create of the same name (it fails on
    // pg_type's unique index), so everything below runs under one lock.
    let key = format!("hwf migrate {}", schema.unwrap_or(""));
    tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&key])
        .await
        .map_err(|e| db_err(what, e))?;
    // `… IF NOT EXISTS, skipping` notices are not news on every start.
    tx.batch_execute("SET LOCAL client_min_messages = warning")
        .await
        .map_err(|e| db_err(what, e))?;
    if let Some(schema) = schema {
        check_schema_name(schema)?;
        tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
            .await
            .map_err(|e| db_err(what, e))?;
    }
    tx.batch_execute(CREATE_TABLE).await.map_err(|e| db_err(what, e))?;
    tx.batch_execute("LOCK TABLE hwf_schema_migrations IN EXCLUSIVE MODE")
        .await
        .map_err(|e| db_err(what, e))?;
    let rows = tx
        .query("SELECT version FROM hwf_schema_migrations", &[])
        .await
        .map_err(|e| db_err(what, e))?;
    let done: Vec<u32> = rows.iter().map(|r| r.get::<_, i32>(0).unsigned_abs()).collect();
    let known = MIGRATIONS.iter().map(|m| m.version).max().unwrap_or(0);
    if let Some(newer) = done.iter().copied().filter(|v| *v > known).max() {
        return Err(invalid_config(format!(
            "the PostgreSQL store is at schema version {newer}, newer than this build of hwf knows ({known}): \
             upgrade hwf"
        )));
    }
    let mut applied = Vec::new();
    for m in MIGRATIONS {
        if done.contains(&m.version) {
            continue;
        }
        tx.batch_execute(m.sql)
            .await
            .map_err(|e| db_err(format!("migration {} ({})", m.version, m.name), e))?;
        let version = i32::try_from(m.version).unwrap_or(i32::MAX);
        tx.execute(
            "INSERT INTO hwf_schema_migrations (version, name) VALUES ($1, $2)",
            &[&version, &m.name],
        )
        .await
        .map_err(|e| db_err(what, e))?;
        applied.push(m.version);
    }
    tx.commit().await.map_err(|e| db_err(what, e))?;
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_ascend_and_schema_names_need_no_quoting() {
        assert!(MIGRATIONS.windows(2).all(|w| w[0].version < w[1].version));
        assert_eq!(MIGRATIONS[0].version, 1);
        for good in ["hwf", "hwf_test_01", "a"] {
            assert!(check_schema_name(good).is_ok(), "{good}");
        }
        for bad in ["", "1abc", "Hwf", "a-b", "a;drop", "x\"y", &"a".repeat(64)] {
            assert!(check_schema_name(bad).is_err(), "{bad}");
        }
    }
}

//! [`ScriptCatalog`], [`EventLog`] and [`BlobStore`] on PostgreSQL.

use crate::{PgStore, big, db_err, internal, sql_state, unsigned};
use hwf_core::error::{Error, ErrorCode};
use hwf_core::ids::validate_name;
use hwf_core::lang::Language;
use hwf_core::model::{ExternalEvent, ScriptMeta};
use hwf_core::payload::{Chunk, ChunkId};
use hwf_core::store::{
    BlobRef, BlobStore, EventLog, ScriptCatalog, StoreError, StoreResult, async_trait, stored_event,
};
use tokio_postgres::error::SqlState;

fn no_script(name: &str) -> StoreError {
    StoreError::NotFound(format!("no saved script named {name:?}"))
}

fn parse_meta(name: &str, version: i32, text: &str) -> StoreResult<ScriptMeta> {
    let mut meta: ScriptMeta = serde_json::from_str(text)
        .map_err(|e| StoreError::Corrupt(format!("the meta of script {name:?} v{version}: {e}")))?;
    name.clone_into(&mut meta.name);
    meta.version = version.unsigned_abs();
    Ok(meta)
}

/// How many times a save with `replace` retries when a concurrent save
/// took the version number it computed.
const SAVE_RETRIES: usize = 8;

#[async_trait]
impl ScriptCatalog for PgStore {
    async fn save(&self, name: &str, bytes: &[u8], mut meta: ScriptMeta, replace: bool) -> StoreResult<ScriptMeta> {
        validate_name("script name", name)?;
        meta.name = name.to_owned();
        let text = serde_json::to_string(&meta).map_err(|e| internal(format!("script meta: {e}")))?;
        let client = self.durable().await?;
        // The next version, only when `replace` or the name is new; a
        // concurrent save of the same number fails on the key.
        let stmt = client
            .prepare_cached(
                "INSERT INTO hwf_scripts (name, version, language, meta, bytes)
                 SELECT $1, coalesce(max(version), 0) + 1, $2, $3, $4 FROM hwf_scripts WHERE name = $1
                 HAVING $5 OR count(*) = 0
                 RETURNING version",
            )
            .await
            .map_err(|e| db_err("save a script", e))?;
        for _ in 0..SAVE_RETRIES {
            match client
                .query_opt(&stmt, &[&name, &meta.language, &text, &bytes, &replace])
                .await
            {
                Ok(Some(row)) => {
                    meta.version = row.get::<_, i32>(0).unsigned_abs();
                    return Ok(meta);
                }
                Ok(None) => break,
                Err(e) if sql_state(&e) == Some(&SqlState::UNIQUE_VIOLATION) && replace => continue,
                Err(e) if sql_state(&e) == Some(&SqlState::UNIQUE_VIOLATION) => break,
                Err(e) => return Err(db_err(format!("save script {name:?}"), e)),
            }
        }
        if replace {
            return Err(StoreError::Other(Error::new(
                ErrorCode::Io,
                format!("save script {name:?}: {SAVE_RETRIES} concurrent saves took every version number tried"),
            )));
        }
        drop(client);
        let last = self.versions(name).await?.last().copied().unwrap_or(0);
        Err(StoreError::AlreadyExists(format!(
            "script {name:?} already exists (latest v{last:06}); pass --replace to save a new version"
        )))
    }

    async fn meta(&self, name: &str, version: Option<u32>) -> StoreResult<ScriptMeta> {
        validate_name("script name", name)?;
        let client = self.durable().await?;
        let row = match version {
            None => {
                let stmt = client
                    .prepare_cached(
                        "SELECT version, meta FROM hwf_scripts WHERE name = $1 ORDER BY version DESC LIMIT 1",
                    )
                    .await
                    .map_err(|e| db_err("read a script", e))?;
                client
                    .query_opt(&stmt, &[&name])
                    .await
                    .map_err(|e| db_err(format!("read script {name:?}"), e))?
                    .ok_or_else(|| no_script(name))?
            }
            Some(v) => {
                let version = i32::try_from(v).unwrap_or(i32::MAX);
                let stmt = client
                    .prepare_cached("SELECT version, meta FROM hwf_scripts WHERE name = $1 AND version = $2")
                    .await
                    .map_err(|e| db_err("read a script", e))?;
                match client
                    .query_opt(&stmt, &[&name, &version])
                    .await
                    .map_err(|e| db_err(format!("read script {name:?}"), e))?
                {
                    Some(row) => row,
                    None => {
                        drop(client);
                        self.versions(name).await?;
                        return Err(StoreError::NotFound(format!("script {name:?} has no version {v}")));
                    }
                }
            }
        };
        parse_meta(name, row.get(0), row.get(1))
    }

    async fn bytes(&self, name: &str, version: u32) -> StoreResult<Vec<u8>> {
        validate_name("script name", name)?;
        let v = i32::try_from(version).unwrap_or(i32::MAX);
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached("SELECT bytes FROM hwf_scripts WHERE name = $1 AND version = $2")
            .await
            .map_err(|e| db_err("read a script", e))?;
        let row = client
            .query_opt(&stmt, &[&name, &v])
            .await
            .map_err(|e| db_err(format!("read script {name:?}"), e))?;
        drop(client);
        match row {
            Some(row) => Ok(row.get(0)),
            None => {
                self.versions(name).await?;
                Err(StoreError::NotFound(format!(
                    "script {name:?} has no version {version}"
                )))
            }
        }
    }

    async fn names(&self) -> StoreResult<Vec<String>> {
        let client = self.durable().await?;
        let rows = client
            .query("SELECT DISTINCT name FROM hwf_scripts ORDER BY name", &[])
            .await
            .map_err(|e| db_err("list scripts", e))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    async fn versions(&self, name: &str) -> StoreResult<Vec<u32>> {
        validate_name("script name", name)?;
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached("SELECT version FROM hwf_scripts WHERE name = $1 ORDER BY version")
            .await
            .map_err(|e| db_err("list script versions", e))?;
        let rows = client
            .query(&stmt, &[&name])
            .await
            .map_err(|e| db_err(format!("list the versions of script {name:?}"), e))?;
        if rows.is_empty() {
            return Err(no_script(name));
        }
        Ok(rows.iter().map(|r| r.get::<_, i32>(0).unsigned_abs()).collect())
    }
}

fn parse_event(text: &str) -> StoreResult<ExternalEvent> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("a stored event: {e}")))
}

#[async_trait]
impl EventLog for PgStore {
    async fn append(&self, event: ExternalEvent) -> StoreResult<(ExternalEvent, bool)> {
        let mut event = stored_event(event)?;
        let what = "append an event";
        let mut client = self.durable().await?;
        let tx = client.transaction().await.map_err(|e| db_err(what, e))?;
        // Versions are store-wide and gapless: one appender at a time
        // (readers are not blocked).
        tx.batch_execute("LOCK TABLE hwf_events IN SHARE ROW EXCLUSIVE MODE")
            .await
            .map_err(|e| db_err(what, e))?;
        let existing = tx
            .query_opt(
                "SELECT body FROM hwf_events WHERE source = $1 \
                 AND (id = $2 OR ($3::text IS NOT NULL AND (body::jsonb) ? 'digest' \
                 AND ((body::jsonb) ->> 'digest') = $3)) LIMIT 1",
                &[&event.source, &event.id, &event.digest],
            )
            .await
            .map_err(|e| db_err(what, e))?;
        if let Some(row) = existing {
            return Ok((parse_event(row.get(0))?, false));
        }
        let last: i64 = tx
            .query_one("SELECT coalesce(max(version), 0) FROM hwf_events", &[])
            .await
            .map_err(|e| db_err(what, e))?
            .get(0);
        event.version = unsigned(last, "event version")? + 1;
        let body = serde_json::to_string(&event).map_err(|e| internal(format!("event: {e}")))?;
        tx.execute(
            "INSERT INTO hwf_events (version, source, id, body) VALUES ($1, $2, $3, $4)",
            &[&big(event.version, "event version")?, &event.source, &event.id, &body],
        )
        .await
        .map_err(|e| db_err(what, e))?;
        tx.commit().await.map_err(|e| db_err(what, e))?;
        Ok((event, true))
    }

    async fn since(&self, version: u64) -> StoreResult<Vec<ExternalEvent>> {
        let client = self.durable().await?;
        let after = big(version.min(i64::MAX as u64), "event version")?;
        let stmt = client
            .prepare_cached("SELECT body FROM hwf_events WHERE version > $1 ORDER BY version")
            .await
            .map_err(|e| db_err("read events", e))?;
        let rows = client
            .query(&stmt, &[&after])
            .await
            .map_err(|e| db_err("read events", e))?;
        rows.iter().map(|r| parse_event(r.get(0))).collect()
    }
}

/// Refuse a text script holding a credential (as the file store does:
/// scripts are stored as sent).
fn refuse_credentials(bytes: &[u8], language: Language) -> StoreResult<()> {
    if language == Language::Wasm {
        return Ok(());
    }
    let text = String::from_utf8_lossy(bytes);
    match hwf_core::redact::find_credential(&text) {
        None => Ok(()),
        Some((line, what)) => Err(StoreError::Other(Error::new(
            ErrorCode::InvalidScript,
            format!(
                "line {line} of the script holds {what}; scripts are stored as sent, so hwf refuses to keep \
                 credentials in them: configure the secret on the host and leave it out of the script"
            ),
        ))),
    }
}

#[async_trait]
impl BlobStore for PgStore {
    async fn put(&self, bytes: &[u8], language: Language) -> StoreResult<BlobRef> {
        refuse_credentials(bytes, language)?;
        let r = BlobRef::of(bytes, language);
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached("INSERT INTO hwf_blobs (ref, bytes) VALUES ($1, $2) ON CONFLICT (ref) DO NOTHING")
            .await
            .map_err(|e| db_err("store a blob", e))?;
        client
            .execute(&stmt, &[&r.as_str(), &bytes])
            .await
            .map_err(|e| db_err(format!("store blob {}", r.as_str()), e))?;
        Ok(r)
    }

    async fn get(&self, blob: &BlobRef) -> StoreResult<Vec<u8>> {
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached("SELECT bytes FROM hwf_blobs WHERE ref = $1")
            .await
            .map_err(|e| db_err("read a blob", e))?;
        let row = client
            .query_opt(&stmt, &[&blob.as_str()])
            .await
            .map_err(|e| db_err(format!("read blob {}", blob.as_str()), e))?;
        row.map(|r| r.get(0))
            .ok_or_else(|| StoreError::NotFound(format!("no blob {}", blob.as_str())))
    }

    /// One statement (so one transaction: all or none), synchronously
    /// committed, so a journal line appended after it never names a chunk
    /// a crash of the database could lose.
    async fn put_chunks(&self, chunks: &[Chunk]) -> StoreResult<u64> {
        if chunks.is_empty() {
            return Ok(0);
        }
        let ids: Vec<&[u8]> = chunks.iter().map(|c| c.id.0.as_slice()).collect();
        let bytes: Vec<&[u8]> = chunks.iter().map(|c| c.bytes.as_slice()).collect();
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached(
                "INSERT INTO hwf_chunks (id, bytes) SELECT * FROM unnest($1::bytea[], $2::bytea[]) \
                 ON CONFLICT (id) DO NOTHING RETURNING octet_length(bytes)",
            )
            .await
            .map_err(|e| db_err("store journal payload chunks", e))?;
        let rows = client
            .query(&stmt, &[&ids, &bytes])
            .await
            .map_err(|e| db_err("store journal payload chunks", e))?;
        Ok(rows.iter().map(|r| u64::from(r.get::<_, i32>(0).unsigned_abs())).sum())
    }

    async fn get_chunks(&self, ids: &[ChunkId]) -> StoreResult<Vec<Vec<u8>>> {
        let mut found = self.select_chunks(ids, true).await?;
        ids.iter()
            .map(|id| {
                found
                    .remove(id)
                    .flatten()
                    .ok_or_else(|| StoreError::NotFound(format!("no journal payload chunk {id}")))
            })
            .collect()
    }

    async fn has_chunks(&self, ids: &[ChunkId]) -> StoreResult<Vec<bool>> {
        let found = self.select_chunks(ids, false).await?;
        Ok(ids.iter().map(|id| found.contains_key(id)).collect())
    }
}

impl PgStore {
    /// The chunks among `ids` that are kept, with their bytes when asked.
    async fn select_chunks(
        &self,
        ids: &[ChunkId],
        with_bytes: bool,
    ) -> StoreResult<std::collections::HashMap<ChunkId, Option<Vec<u8>>>> {
        let mut found = std::collections::HashMap::new();
        if ids.is_empty() {
            return Ok(found);
        }
        let keys: Vec<&[u8]> = ids.iter().map(|id| id.0.as_slice()).collect();
        let client = self.durable().await?;
        let sql = if with_bytes {
            "SELECT id, bytes FROM hwf_chunks WHERE id = ANY($1)"
        } else {
            "SELECT id, NULL::bytea FROM hwf_chunks WHERE id = ANY($1)"
        };
        let stmt = client
            .prepare_cached(sql)
            .await
            .map_err(|e| db_err("read journal payload chunks", e))?;
        let rows = client
            .query(&stmt, &[&keys])
            .await
            .map_err(|e| db_err("read journal payload chunks", e))?;
        for row in rows {
            let id: &[u8] = row.get(0);
            let id: [u8; 32] = id
                .try_into()
                .map_err(|_| StoreError::Corrupt("a journal payload chunk id is not 32 bytes".into()))?;
            found.insert(ChunkId(id), row.get::<_, Option<Vec<u8>>>(1));
        }
        Ok(found)
    }
}

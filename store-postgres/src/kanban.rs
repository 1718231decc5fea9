//! [`KanbanStore`] on PostgreSQL: `hwf_kanban_board` (one row) and
//! `hwf_kanban_cards` (schema version 5).

use crate::PgStore;
use hwf_core::error::{Error, ErrorCode};
use hwf_core::store::{KanbanStore, StoreError, StoreResult, async_trait, valid_card_id};
use serde_json::Value;

/// The card's id, when every store accepts it.
fn card_id(card: &Value) -> StoreResult<&str> {
    let id = card.get("id").and_then(Value::as_str).unwrap_or("");
    checked(id)
}

fn checked(id: &str) -> StoreResult<&str> {
    if valid_card_id(id) {
        Ok(id)
    } else {
        Err(StoreError::Other(Error::new(
            ErrorCode::InvalidArgs,
            format!("card id {:?} is not a card id", id.chars().take(64).collect::<String>()),
        )))
    }
}

fn parse(id: &str, text: &str) -> StoreResult<Value> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("card {id} is not JSON: {e}")))
}

fn no_card(id: &str) -> StoreError {
    StoreError::NotFound(format!("no card {id}"))
}

#[async_trait]
impl KanbanStore for PgStore {
    async fn kanban_board(&self) -> StoreResult<Option<Value>> {
        let rows = self
            .inner
            .rows(true, "SELECT config FROM hwf_kanban_board", &[])
            .await
            .map_err(|e| e.store("read the kanban board"))?;
        rows.first()
            .map(|r| {
                serde_json::from_str(r.get(0))
                    .map_err(|e| StoreError::Corrupt(format!("the kanban board is not JSON: {e}")))
            })
            .transpose()
    }

    async fn put_kanban_board(&self, config: Option<&Value>) -> StoreResult<()> {
        // Both statements write the same again when repeated.
        match config {
            Some(c) => {
                let text = c.to_string();
                self.inner
                    .exec(
                        true,
                        "INSERT INTO hwf_kanban_board (one, config) VALUES (true, $1)
                         ON CONFLICT (one) DO UPDATE SET config = EXCLUDED.config",
                        &[&text],
                    )
                    .await
            }
            None => self.inner.exec(true, "DELETE FROM hwf_kanban_board", &[]).await,
        }
        .map_err(|e| e.store("write the kanban board"))?;
        Ok(())
    }

    async fn create_card(&self, card: &Value) -> StoreResult<(Value, bool)> {
        let id = card_id(card)?;
        let created = card
            .get("created_at_ms")
            .and_then(Value::as_u64)
            .and_then(|t| i64::try_from(t).ok())
            .unwrap_or(0);
        let text = card.to_string();
        // One statement: the key decides who created it; a repeat after a
        // lost connection finds its own card (the same text).
        let n = self
            .inner
            .exec(
                true,
                "INSERT INTO hwf_kanban_cards (id, created_at_ms, card) VALUES ($1, $2, $3)
                 ON CONFLICT (id) DO NOTHING",
                &[&id, &created, &text],
            )
            .await
            .map_err(|e| e.store(format!("create card {id}")))?;
        if n == 1 {
            return Ok((card.clone(), true));
        }
        // Someone's card was there (also ours, when a first try committed
        // before its connection was lost: then it reads as not created now).
        Ok((self.card(id).await?, false))
    }

    async fn card(&self, id: &str) -> StoreResult<Value> {
        let id = checked(id)?;
        let rows = self
            .inner
            .rows(true, "SELECT card FROM hwf_kanban_cards WHERE id = $1", &[&id])
            .await
            .map_err(|e| e.store(format!("read card {id}")))?;
        let row = rows.first().ok_or_else(|| no_card(id))?;
        parse(id, row.get(0))
    }

    async fn replace_card(&self, card: &Value) -> StoreResult<()> {
        let id = card_id(card)?;
        let text = card.to_string();
        let n = self
            .inner
            .exec(
                true,
                "UPDATE hwf_kanban_cards SET card = $2, updated_at = now() WHERE id = $1",
                &[&id, &text],
            )
            .await
            .map_err(|e| e.store(format!("write card {id}")))?;
        if n == 0 {
            return Err(no_card(id));
        }
        Ok(())
    }

    async fn cards(&self) -> StoreResult<Vec<Value>> {
        let rows = self
            .inner
            .rows(
                true,
                "SELECT id, card FROM hwf_kanban_cards ORDER BY created_at_ms, id",
                &[],
            )
            .await
            .map_err(|e| e.store("list cards"))?;
        // One damaged card is listed as such; it never takes the board down.
        Ok(rows
            .iter()
            .map(|r| {
                let id: &str = r.get(0);
                parse(id, r.get(1)).unwrap_or_else(|e| {
                    tracing::warn!(card = id, error = %e, "a kanban card cannot be read");
                    serde_json::json!({"id": id, "status": "unreadable", "title": "(unreadable card)",
                        "error": {"code": "corrupt_store", "message": e.to_string()}})
                })
            })
            .collect())
    }
}

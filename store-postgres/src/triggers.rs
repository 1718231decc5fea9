//! [`TriggerStore`] on PostgreSQL: `hwf_triggers`, one row per trigger
//! (schema version 4).

use crate::{PgStore, internal};
use hwf_core::ids::validate_name;
use hwf_core::store::{StoreError, StoreResult, TriggerStore, async_trait};
use serde_json::Value;

#[async_trait]
impl TriggerStore for PgStore {
    async fn put_trigger(&self, name: &str, definition: &Value) -> StoreResult<()> {
        validate_name("trigger name", name)?;
        let text = serde_json::to_string(definition).map_err(|e| internal(format!("trigger: {e}")))?;
        // The same row again when repeated: safe to retry.
        self.inner
            .exec(
                true,
                "INSERT INTO hwf_triggers (name, definition) VALUES ($1, $2)
                 ON CONFLICT (name) DO UPDATE SET definition = EXCLUDED.definition, updated_at = now()",
                &[&name, &text],
            )
            .await
            .map_err(|e| e.store(format!("save trigger {name}")))?;
        Ok(())
    }

    async fn triggers(&self) -> StoreResult<Vec<(String, Value)>> {
        let rows = self
            .inner
            .rows(true, "SELECT name, definition FROM hwf_triggers ORDER BY name", &[])
            .await
            .map_err(|e| e.store("list triggers"))?;
        rows.iter()
            .map(|r| {
                let name: String = r.get(0);
                let definition =
                    serde_json::from_str(r.get(1)).map_err(|e| StoreError::Corrupt(format!("trigger {name}: {e}")))?;
                Ok((name, definition))
            })
            .collect()
    }

    async fn remove_trigger(&self, name: &str) -> StoreResult<bool> {
        validate_name("trigger name", name)?;
        // Repeated after a lost connection, a delete that had committed
        // reports nothing removed; the trigger is gone either way.
        let n = self
            .inner
            .exec(true, "DELETE FROM hwf_triggers WHERE name = $1", &[&name])
            .await
            .map_err(|e| e.store(format!("remove trigger {name}")))?;
        Ok(n > 0)
    }
}

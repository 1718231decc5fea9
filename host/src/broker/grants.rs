//! A run's grant uses (`grant.act`, `capabilities/grants.rs`): the
//! [`Ledger`] read from the run's journal through the host's store, and
//! each new use charged as a durable `grant_used` record under the run's
//! claim before the granted effect runs.
//!
//! Only the claim's holder appends to the journal, so once read the ledger
//! stays exact for the execution: it changes only by this execution's own
//! charges. It is read again when a grant is not in it (its
//! `grant.request` may have completed in this execution after the read).

use super::{Event, RunContext};
use crate::capabilities::grants::Ledger;
use crate::capabilities::{CapabilityError, GrantCharge};
use hwf_core::store::RunStore;
use serde_json::Value;

impl RunContext {
    /// The run's journal and its older use markers, read through the
    /// host's store once this execution's queued lines are stored.
    async fn read_ledger(&self) -> Result<Ledger, CapabilityError> {
        let Some(store) = self.services.store.as_ref() else {
            return Err(crate::capabilities::grants::no_journal());
        };
        self.flush_journal().await.map_err(CapabilityError::Store)?;
        let mut journal = RunStore::entries(&**store, &self.run_id, 0)
            .await
            .map_err(|e| CapabilityError::Store(e.into()))?;
        // The grants' terms are capability results, which a journal may
        // keep by content.
        for e in journal.iter_mut().filter(|e| e.kind() == Some("capability")) {
            store.resolve(e).map_err(CapabilityError::Store)?;
        }
        Ledger::from_journal(&journal)
            .with_markers(store.root(), &self.run_id)
            .map_err(CapabilityError::Store)
    }

    /// The terms of the grant made by `grant_call` (see
    /// [`crate::capabilities::Durable::grant_terms`]).
    pub(crate) async fn grant_terms(&self, grant_call: &str) -> Result<Option<Value>, CapabilityError> {
        let mut ledger = self.grants.lock().await;
        if let Some(terms) = ledger.as_ref().and_then(|l| l.terms(grant_call)) {
            return Ok(Some(terms.clone()));
        }
        let read = self.read_ledger().await?;
        let terms = read.terms(grant_call).cloned();
        *ledger = Some(read);
        Ok(terms)
    }

    /// Charge `call` one use of the grant made by `grant_call` (see
    /// [`crate::capabilities::Durable::charge_grant`]).
    pub(crate) async fn charge_grant(
        &self,
        grant_call: &str,
        call: &str,
        count: u64,
    ) -> Result<GrantCharge, CapabilityError> {
        let mut guard = self.grants.lock().await;
        let ledger = match guard.take() {
            Some(l) => l,
            None => self.read_ledger().await?,
        };
        let ledger = guard.insert(ledger);
        if let Some(answer) = ledger.precharge(grant_call, call, count) {
            return Ok(answer);
        }
        // Durable before the effect, and only under the run's claim (a
        // shared store's commit compares its fencing token).
        self.journal_durable(
            &[Event::GrantUsed {
                grant: grant_call,
                call,
            }],
            true,
        )
        .await
        .map_err(|t| CapabilityError::Store(crate::Error::new(t.code, t.message)))?;
        ledger.charge(grant_call, call);
        Ok(GrantCharge::Charged {
            uses: ledger.uses(grant_call),
        })
    }
}

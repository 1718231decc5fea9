//! The claim an execution holds and the writes made under it: the bottom of
//! `app/`, shared by runs (which take the claim) and the monitor (which
//! writes the live snapshot under it).

use crate::store::RunSnapshot;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::store::{Claim, RunStore, SaveMode, StoreError};

/// The claim an execution holds: shared with its progress reporter, which
/// writes the live snapshot under it.
pub(crate) type ExecClaim = std::sync::Arc<dyn Claim>;

/// Save the snapshot of a run under its claim: refused, writing nothing,
/// once the claim is no longer the run's current one — and then the claim
/// reads lost for everything sharing it (the reporter, the journal writer).
///
/// # Errors
///
/// `conflict` (the claim was lost, see [`claim_lost`]), `not_found`, `io`.
pub(crate) async fn save_claimed(
    store: &dyn RunStore,
    snap: &RunSnapshot,
    mode: SaveMode,
    claim: &dyn Claim,
) -> Result<()> {
    store.save(snap, mode, Some(claim)).await.map_err(|e| {
        if matches!(e, StoreError::Fenced { .. }) {
            claim.fence().release();
        }
        claim_lost(&snap.run_id, e)
    })
}

/// A store error from a write under a claim; a lost claim (`Fenced`)
/// becomes a `conflict` naming what happened.
pub(crate) fn claim_lost(run: &RunId, e: StoreError) -> Error {
    match e {
        StoreError::Fenced { token, .. } => Error::new(
            ErrorCode::Conflict,
            format!(
                "run {run}: this process lost the run's claim (fencing token {token}) while executing it — another executor took the run over; this execution ended without writing on"
            ),
        ),
        e => e.into(),
    }
}

//! Resuming from a run (`--resume-from`, `resume_from_run_id`): a
//! [`ResumePlan`] says which journals answer the new run's calls, where its
//! random seed comes from and where its virtual clock starts.

use crate::Hwf;
use crate::broker::replay::ReplayIndex;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use serde_json::Value;

/// What a resumed run takes from its source.
#[derive(Debug)]
pub struct ResumePlan {
    /// The source's journal and its lineage's, indexed: matching calls are
    /// answered from them.
    pub replay: ReplayIndex,
    /// The first run of the lineage (the guest's random seed derives from
    /// it).
    pub seed_run: RunId,
    /// Where the guest's virtual wall clock starts (the lineage's first
    /// creation time).
    pub clock_origin_ms: u64,
    /// What the source needs of the host that continues it
    /// ([`hwf_core::model::RunSnapshot::needs`]): the new run carries it,
    /// so a run resumed on a host without an embedder's capabilities still
    /// names the host that can finish it.
    pub needs: Vec<hwf_core::model::CapabilityNeed>,
}

impl Hwf {
    /// Plan a resume from `source` of a run with `args` of the component
    /// with `digest`: the source must be the same component with the same
    /// args unless `allow_changed`, and its journal must be there.
    ///
    /// # Errors
    ///
    /// `not_found`, `resume_mismatch` (another component or other args),
    /// `corrupt_store` (a journal that cannot be read or is missing).
    pub fn resume_plan(&self, source: &RunId, args: &Value, digest: &str, allow_changed: bool) -> Result<ResumePlan> {
        let snap = self.store.read_snapshot(source)?;
        if !allow_changed {
            if snap.script.digest != digest {
                return Err(Error::new(
                    ErrorCode::ResumeMismatch,
                    format!(
                        "run {source} ran component {} but this is {}; pass --allow-changed to replay its matching prefix anyway",
                        short(&snap.script.digest),
                        short(digest)
                    ),
                ));
            }
            if *hwf_core::redact::redacted(args) != snap.args {
                return Err(Error::new(
                    ErrorCode::ResumeMismatch,
                    format!("run {source} ran with different args; pass the same --args, or --allow-changed"),
                ));
            }
        }
        let events = self.store.read_entries_for_replay(source)?;
        crate::app::runner::check_journal_present(&snap, &events)?;
        let controls = crate::app::control::read_controls(&self.store, source)?;
        // The source and the runs it was resumed from answer calls; the new
        // run has no journal of its own yet.
        let mut sources = self.lineage_journals(snap.resumed_from.as_ref())?;
        sources.push(events);
        Ok(ResumePlan {
            replay: crate::app::runner::replay_index(&sources, &[], &controls),
            seed_run: snap.seed_run().clone(),
            clock_origin_ms: snap.clock_origin(),
            needs: snap.needs,
        })
    }
}

/// A digest shortened for a message.
fn short(digest: &str) -> &str {
    &digest[..digest.len().min(15)]
}

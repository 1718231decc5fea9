//! Stage 6, the **prompt cache**: an identical prompt-agent call (same
//! fingerprint) that already succeeded in this run is answered with the
//! same result (`cache_hit`), unless the request says `fresh`. The cache
//! lives as long as the run's context; it is not persisted (a resume
//! answers the same calls from the journal instead).

use super::call::TaskSpec;
use super::{RunContext, lock};
use hwf_core::fingerprint::Fingerprint;
use hwf_core::schema::AnswerRules;
use serde_json::Value;

impl RunContext {
    /// Whether `spec`'s outcome may be cached or answered from the cache:
    /// a prompt agent without `fresh` that can be made at all.
    pub(crate) fn cacheable(spec: &TaskSpec) -> bool {
        matches!(spec, TaskSpec::Agent(a) if a.cacheable())
    }

    /// The cached result of a call with fingerprint `fp`, when it was
    /// accepted under the same answer rules (the fingerprint leaves them
    /// out: a result a laxer check took must not answer a stricter one).
    pub(crate) fn cached(&self, fp: &Fingerprint, rules: &AnswerRules) -> Option<Value> {
        lock(&self.prompt_cache)
            .get(fp.as_str())
            .filter(|(kept, _)| kept.checks_like(rules))
            .map(|(_, v)| v.clone())
    }

    /// Keep a call's successful result, and the rules it met, for later
    /// identical calls.
    pub(crate) fn remember(&self, fp: &Fingerprint, rules: &AnswerRules, result: &Value) {
        lock(&self.prompt_cache).insert(fp.as_str().to_owned(), (*rules, result.clone()));
    }
}

//! Routing agent calls to backends: by agent id, then by agent type, then
//! the default (`[agents.routes]` in `hwf.toml`).

use super::{AgentBackend, AgentCall, AgentError, AgentReply, BoxFuture};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// Picks a backend per call.
pub struct Router {
    backends: HashMap<String, Arc<dyn AgentBackend>>,
    by_agent: HashMap<String, String>,
    by_type: HashMap<String, String>,
    default: String,
}

impl std::fmt::Debug for Router {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Router")
            .field("default", &self.default)
            .finish_non_exhaustive()
    }
}

impl Router {
    /// A router over named backends. Route keys are agent ids, or
    /// `type:<agent type>`; `default` names the fallback backend.
    ///
    /// # Errors
    ///
    /// `invalid_config` naming a route or default that points nowhere.
    pub fn new(
        backends: HashMap<String, Arc<dyn AgentBackend>>,
        routes: &HashMap<String, String>,
        default: &str,
    ) -> crate::Result<Self> {
        let bad = |what: String| crate::Error::new(crate::ErrorCode::InvalidConfig, what);
        if !backends.contains_key(default) {
            return Err(bad(format!("agents.default = {default:?} names no backend")));
        }
        let (mut by_agent, mut by_type) = (HashMap::new(), HashMap::new());
        for (key, backend) in routes {
            if !backends.contains_key(backend) {
                return Err(bad(format!("agents.routes.{key:?} = {backend:?} names no backend")));
            }
            match key.strip_prefix("type:") {
                Some(t) => by_type.insert(t.to_owned(), backend.clone()),
                None => by_agent.insert(key.clone(), backend.clone()),
            };
        }
        Ok(Self {
            backends,
            by_agent,
            by_type,
            default: default.to_owned(),
        })
    }

    /// The backend name a request goes to.
    pub fn route(&self, request: &Value) -> &str {
        let agent = request.get("agent").and_then(Value::as_str);
        let ty = request.get("agent_type").and_then(Value::as_str);
        agent
            .and_then(|a| self.by_agent.get(a))
            .or_else(|| ty.and_then(|t| self.by_type.get(t)))
            .map_or(self.default.as_str(), String::as_str)
    }
}

impl AgentBackend for Router {
    fn call<'a>(&'a self, call: AgentCall<'a>) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        let name = self.route(call.request);
        match self.backends.get(name) {
            Some(b) => b.call(call),
            None => Box::pin(async move { Err(AgentError::failed(format!("no agent backend named {name:?}"))) }),
        }
    }

    fn answers_in_order(&self, request: &Value) -> bool {
        self.backends
            .get(self.route(request))
            .is_some_and(|b| b.answers_in_order(request))
    }

    fn reserve(&self, request: &Value) -> Option<u64> {
        self.backends.get(self.route(request)).and_then(|b| b.reserve(request))
    }
}

//! The agents this server hosts (the demo agent, OpenAI-compatible models, foreign AG-UI agents
//! through the proxy) and their registry. What an agent gets to run with — the [`Agent`] trait
//! and the [`RunContext`] — is the run runtime's contract, in [`crate::server::runs::context`].

pub mod demo;
pub mod llm;
pub mod proxy;
pub mod spec;
pub mod upstream;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use super::runs::context::{
    Agent, AgentError, AgentInfo, InputError, RunContext, RunEnd, RunSettings,
    DEFAULT_LLM_IMAGE_SCHEMES,
};

/// The agents served here, by id.
#[derive(Clone, Default)]
pub struct AgentRegistry {
    agents: BTreeMap<String, Arc<dyn Agent>>,
}

impl AgentRegistry {
    pub fn insert(&mut self, agent: Arc<dyn Agent>) {
        self.agents.insert(agent.info().id, agent);
    }
    pub fn get(&self, id: &str) -> Option<Arc<dyn Agent>> {
        self.agents.get(id).cloned()
    }
    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn Agent>> {
        self.agents.values()
    }

    /// Every agent as `GET /api/agents` and the page list it.
    pub fn summaries(&self) -> Vec<crate::wire::AgentSummary> {
        self.all().map(|a| summary(a.info())).collect()
    }
}

fn summary(info: AgentInfo) -> crate::wire::AgentSummary {
    let mut extra = info.extra;
    let scenarios = extra
        .remove("scenarios")
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    crate::wire::AgentSummary {
        url: crate::wire::agent_url(&info.id),
        id: info.id,
        name: info.name,
        description: info.description,
        capabilities: info.capabilities,
        scenarios,
        extra,
    }
}

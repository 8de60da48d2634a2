//! The agents this server hosts (the demo agent, OpenAI-compatible models, foreign AG-UI agents
//! through the proxy) and their registry. What an agent gets to run with — the [`Agent`] trait
//! and the [`RunContext`] — is the run runtime's contract, in [`crate::server::runs::context`].

pub mod capabilities;
pub mod demo;
pub mod llm;
pub mod proxy;
pub mod spec;
pub mod upstream;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use super::runs::context::{
    Agent, AgentError, AgentInfo, InputError, Resume, RunContext, RunEnd, RunSettings,
    DEFAULT_LLM_IMAGE_SCHEMES,
};

/// The agents served here, by id.
#[derive(Clone, Default)]
pub struct AgentRegistry {
    agents: BTreeMap<String, Arc<dyn Agent>>,
    facts: capabilities::ServerFacts,
}

impl AgentRegistry {
    pub fn insert(&mut self, agent: Arc<dyn Agent>) {
        self.agents.insert(agent.info().id, agent);
    }
    /// What the server does for every agent, completing each one's capabilities.
    pub fn set_facts(&mut self, facts: capabilities::ServerFacts) {
        self.facts = facts;
    }
    pub fn get(&self, id: &str) -> Option<Arc<dyn Agent>> {
        self.agents.get(id).cloned()
    }
    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn Agent>> {
        self.agents.values()
    }

    /// Every agent as `GET /api/agents` and the page list it.
    pub fn summaries(&self) -> Vec<crate::wire::AgentSummary> {
        self.all().map(|a| summary(a.info(), self.facts)).collect()
    }
}

fn summary(info: AgentInfo, facts: capabilities::ServerFacts) -> crate::wire::AgentSummary {
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
        capabilities: capabilities::complete(info.capabilities, facts),
        scenarios,
        extra,
    }
}

//! Talking to a CopilotKit runtime (CopilotKit v2's route set) as an Agent URL: its base URL
//! answers `GET {base}/info` with `{version, agents: {id: {name, description}}, mode, …}`, and
//! each agent runs at `POST {base}/agent/{id}/run` with a `RunAgentInput`, streaming AG-UI
//! events — so once an agent is picked, a run is an ordinary AG-UI run. Pure (no browser API):
//! the picker fetches, this reads what it got.
//!
//! An `info` answer is a foreign document: at most [`MAX_RUNTIME_AGENTS`] agents are read, ids
//! are bounded and descriptions cut, and anything not of the runtime's shape is no runtime.

use serde_json::Value;

/// The most agents read from one runtime's `info`.
pub const MAX_RUNTIME_AGENTS: usize = 200;
/// The longest agent id kept (longer ones are skipped).
pub const MAX_AGENT_ID_BYTES: usize = 256;
/// The longest description kept, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 300;
/// The largest `info` answer read, in bytes.
pub const MAX_INFO_BYTES: usize = 1024 * 1024;

/// An agent a CopilotKit runtime serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeAgent {
    pub id: String,
    pub description: String,
}

/// A CopilotKit runtime: its base URL and its agents (sorted by id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopilotRuntime {
    pub base: String,
    pub agents: Vec<RuntimeAgent>,
}

impl CopilotRuntime {
    /// The run endpoint of agent `id`.
    pub fn run_url(&self, id: &str) -> String {
        format!(
            "{}/agent/{}/run",
            self.base,
            crate::wire::encode_segment(id)
        )
    }

    /// The agent whose run endpoint `url` is.
    pub fn agent_of(&self, url: &str) -> Option<&RuntimeAgent> {
        self.agents.iter().find(|a| self.run_url(&a.id) == url)
    }
}

/// Where to stop the runs of thread `thread_id` when `run_url` is a runtime agent's run endpoint
/// (`{base}/agent/{id}/run`): `{base}/agent/{id}/stop/{threadId}`. A runtime's run does not
/// end with its connection (another client may `connect` to it), so Stop must say so.
pub fn stop_url(run_url: &str, thread_id: &str) -> Option<String> {
    let agent = run_url.trim().trim_end_matches('/').strip_suffix("/run")?;
    let id = &agent[agent.rfind("/agent/")? + "/agent/".len()..];
    (!id.is_empty() && !id.contains('/') && !thread_id.is_empty())
        .then(|| format!("{agent}/stop/{}", crate::wire::encode_segment(thread_id)))
}

/// The runtime base an Agent URL may name: the URL itself (without a trailing `/`), or, for an
/// agent's run endpoint (`…/agent/{id}/run`), the part before `/agent/`. None for an empty URL.
pub fn runtime_base(url: &str) -> Option<String> {
    let url = url.trim().trim_end_matches('/');
    if url.is_empty() {
        return None;
    }
    if let Some(rest) = url.strip_suffix("/run") {
        if let Some(i) = rest.rfind("/agent/") {
            let id = &rest[i + "/agent/".len()..];
            if !id.is_empty() && !id.contains('/') {
                return Some(rest[..i].to_string());
            }
        }
    }
    Some(url.to_string())
}

/// The runtime at `base` if `info` (the answer of `GET {base}/info`) has CopilotKit's shape: an
/// `agents` object and a `version` or `mode` string. None otherwise (an AG-UI endpoint, a page).
pub fn parse_info(base: &str, info: &Value) -> Option<CopilotRuntime> {
    let obj = info.as_object()?;
    let agents = obj.get("agents")?.as_object()?;
    let labelled = ["version", "mode"]
        .iter()
        .any(|k| obj.get(*k).is_some_and(Value::is_string));
    if !labelled {
        return None;
    }
    let mut list: Vec<RuntimeAgent> = agents
        .iter()
        .filter(|(id, _)| !id.is_empty() && id.len() <= MAX_AGENT_ID_BYTES)
        .take(MAX_RUNTIME_AGENTS)
        .map(|(id, a)| RuntimeAgent {
            id: id.clone(),
            description: a
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .chars()
                .take(MAX_DESCRIPTION_CHARS)
                .collect(),
        })
        .collect();
    list.sort_by(|a, b| a.id.cmp(&b.id));
    Some(CopilotRuntime {
        base: base.to_string(),
        agents: list,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_runtime_run_is_stopped_at_its_agents_stop_route() {
        use super::stop_url;
        assert_eq!(
            stop_url("http://h/api/copilotkit/agent/demo/run", "t 1/x").as_deref(),
            Some("http://h/api/copilotkit/agent/demo/stop/t%201%2Fx")
        );
        assert_eq!(
            stop_url("/ck/agent/a/run/", "t").as_deref(),
            Some("/ck/agent/a/stop/t")
        );
        for url in [
            "/api/agents/demo",
            "/ck/agent//run",
            "/ck/agent/a/b/run",
            "/ck/run",
        ] {
            assert_eq!(stop_url(url, "t"), None, "{url}");
        }
        assert_eq!(stop_url("/ck/agent/a/run", ""), None);
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn a_base_or_a_run_endpoint_names_the_runtime() {
        let base = "http://h:1/api/copilotkit";
        assert_eq!(runtime_base(base).as_deref(), Some(base));
        assert_eq!(runtime_base(&format!("{base}/")).as_deref(), Some(base));
        assert_eq!(
            runtime_base(&format!("{base}/agent/demo/run")).as_deref(),
            Some(base)
        );
        assert_eq!(runtime_base("  ").as_deref(), None);
        // Not a run endpoint: the URL as it is.
        assert_eq!(runtime_base("/agent//run").as_deref(), Some("/agent//run"));
    }

    #[test]
    fn only_the_runtime_shape_is_a_runtime() {
        let info = json!({"version": "1.54.1", "mode": "sse",
            "agents": {"b": {"name": "b", "description": "Bee"}, "a": {"name": "a"}}});
        let rt = parse_info("/api/copilotkit", &info).unwrap();
        assert_eq!(rt.agents.len(), 2);
        assert_eq!(rt.agents[0].id, "a");
        assert_eq!(rt.agents[1].description, "Bee");
        assert_eq!(rt.run_url("a b"), "/api/copilotkit/agent/a%20b/run");
        assert_eq!(rt.agent_of("/api/copilotkit/agent/b/run").unwrap().id, "b");
        for not in [
            json!({"agents": []}),
            json!({"agents": {}}),
            json!({"version": 1, "agents": {}}),
            json!(["agents"]),
            json!({"detail": "Not Found"}),
        ] {
            assert!(parse_info("/x", &not).is_none(), "{not}");
        }
    }

    #[test]
    fn a_hostile_info_is_bounded() {
        let mut agents = serde_json::Map::new();
        for i in 0..1000 {
            agents.insert(
                format!("agent-{i:04}"),
                json!({"description": "d".repeat(10_000)}),
            );
        }
        agents.insert("x".repeat(MAX_AGENT_ID_BYTES + 1), json!({}));
        let rt = parse_info("/x", &json!({"mode": "sse", "agents": agents})).unwrap();
        assert_eq!(rt.agents.len(), MAX_RUNTIME_AGENTS);
        assert!(rt.agents.iter().all(|a| a.id.len() <= MAX_AGENT_ID_BYTES));
        assert!(rt.agents[0].description.chars().count() <= MAX_DESCRIPTION_CHARS);
    }
}

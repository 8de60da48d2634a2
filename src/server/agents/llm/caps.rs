//! What an LLM agent declares in its `AgentCapabilities`: the tools it runs itself (the backend
//! tools with `tools=demo`, and every tool of the connected MCP servers under its
//! `mcp__{server}__{tool}` name), the app's tools it passes on, the model's reasoning streamed,
//! images forwarded (other media are described to the model in words), and its round limit.
//! The server adds transport and persistence (`agents::capabilities`).

use serde_json::{json, Value};

use super::{tools, BackendTools, LlmAgent, MAX_ROUNDS, PROVIDER};
use crate::server::agents::capabilities::tool_item;

impl LlmAgent {
    pub(super) fn capabilities(&self, host: &str) -> Value {
        let s = &self.spec;
        let mut items: Vec<Value> = Vec::new();
        if s.tools == BackendTools::Demo {
            items.extend(
                tools::NAMES
                    .iter()
                    .filter_map(|n| tools::definition(n))
                    .filter_map(|d| tool_item(&d)),
            );
        }
        items.extend(
            self.mcp
                .tools()
                .iter()
                .filter_map(|t| tool_item(&t.definition)),
        );
        json!({
            "identity": {"name": s.id, "type": "llm", "description": format!("OpenAI-compatible chat model at {host}"), "version": env!("CARGO_PKG_VERSION"), "provider": PROVIDER},
            "tools": {"supported": true, "items": items, "parallelCalls": true, "clientProvided": true},
            "output": {"structuredOutput": false, "supportedMimeTypes": ["text/markdown"]},
            "state": {"snapshots": false, "deltas": false, "memory": false},
            "multiAgent": {"supported": false, "delegation": false, "handoffs": false},
            "reasoning": {"supported": true, "streaming": true, "encrypted": false},
            "multimodal": {"input": {"image": true, "audio": false, "video": false, "pdf": false, "file": false}, "output": {"image": false, "audio": false}},
            "execution": {"codeExecution": false, "maxIterations": MAX_ROUNDS},
            // Frontend tools the app offers are left to the user (the studio asks before it runs one).
            "humanInTheLoop": {"supported": true, "approvals": false, "interventions": false, "feedback": false, "interrupts": false, "approveWithEdits": false}
        })
    }
}

//! MCP client (`--mcp`): the tools of configured MCP servers, offered to the LLM agents as
//! `mcp__{server}__{tool}` (the names the official AG-UI MCP middleware uses) and called
//! server-side inside the run, with the official Rust SDK (`rmcp`).
//!
//! Servers are connected at startup, all at once, each within the connect timeout: the tool
//! list is what the model is offered on every run, so it must be known before the first run,
//! and a server that fails is better reported once in the log at startup than as a slow or
//! failing first run. A server that fails to start or list its tools is logged and left out;
//! the server runs without its tools. Tools are listed once (`tools/list_changed` is not
//! followed).
//!
//! Everything a server sends is bounded: tools per server, name and description lengths,
//! schema size, the result's size (cut with a note), the time of each call (its request is
//! dropped, which sends `notifications/cancelled`, on timeout or when the run is cancelled).
//! Failures become a tool result the model reads, never a failed run. One round of the model
//! may call at most `--mcp-max-calls-per-round` MCP tools (the others are answered with an error
//! without reaching the server), and what the servers answer counts against the run's
//! `--max-upstream-bytes` like the model's own stream. Tool lists are read in at most
//! [`MAX_LIST_PAGES`] pages.
//!
//! Tools with a UI (MCP Apps) are in [`apps`].

pub mod apps;
mod connect;
mod result;
pub mod spec;

use std::collections::HashMap;
use std::time::Duration;

use futures::future::join_all;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{json, Map, Value};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

pub use apps::{AppError, AppLink};
pub use result::Outcome;
pub use spec::{McpSpec, Transport};

/// Prefix of every MCP tool name the model sees.
pub const PREFIX: &str = "mcp__";
/// Longest tool name chat APIs accept (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`).
pub const MAX_NAME_LEN: usize = 64;
/// Longest tool description passed on, in characters (longer ones are cut).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Largest input schema passed on, in bytes of JSON (a tool with a larger one is left out).
pub const MAX_SCHEMA_BYTES: usize = 32 * 1024;
/// Most pages of `tools/list` read from one server (a server may paginate forever).
pub const MAX_LIST_PAGES: usize = 16;

/// The configured bounds (from the `--mcp-*` flags).
#[derive(Debug, Clone, Copy)]
pub struct McpLimits {
    pub connect_timeout: Duration,
    pub call_timeout: Duration,
    pub max_result_bytes: usize,
    pub max_tools: usize,
    /// Largest MCP App resource (`resources/read` of a `ui://` HTML) passed to a view.
    pub max_resource_bytes: usize,
    /// Most MCP tool calls in one model round.
    pub max_calls_per_round: usize,
}

impl Default for McpLimits {
    fn default() -> Self {
        McpLimits {
            connect_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(30),
            max_result_bytes: 64 * 1024,
            max_tools: 64,
            max_resource_bytes: 2 << 20,
            max_calls_per_round: 16,
        }
    }
}

/// A tool as offered to the model.
#[derive(Debug, Clone)]
pub struct McpTool {
    /// `mcp__{server}__{tool}`.
    pub offered: String,
    server: usize,
    /// The tool's own name on its server.
    name: String,
    /// The chat `tools` entry.
    pub definition: Value,
    /// The `ui://` resource of its MCP App, if it has one.
    app: Option<String>,
}

struct Server {
    id: String,
    /// Names it in `mcp-apps` activities (with the id).
    hash: String,
    service: RunningService<RoleClient, ClientConfig>,
    apps: apps::AppIndex,
}

/// The run was cancelled while a tool call was in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// The connected servers and their tools, shared by every LLM agent.
pub struct McpHub {
    servers: Vec<Server>,
    /// The tools offered to the model (app-only tools are not).
    tools: Vec<McpTool>,
    by_name: HashMap<String, usize>,
    limits: McpLimits,
    /// Bounds the app requests served at once.
    app_slots: Semaphore,
}

impl Default for McpHub {
    fn default() -> Self {
        McpHub {
            servers: Vec::new(),
            tools: Vec::new(),
            by_name: HashMap::new(),
            limits: McpLimits::default(),
            app_slots: Semaphore::new(apps::MAX_APP_REQUESTS_IN_FLIGHT),
        }
    }
}

impl McpHub {
    /// Connect every server (concurrently, each within the connect timeout) and list its tools.
    /// Servers that fail are logged and left out.
    pub async fn connect(specs: &[McpSpec], limits: McpLimits) -> McpHub {
        let attempts = specs.iter().map(|spec| async move {
            let r = tokio::time::timeout(limits.connect_timeout, connect::connect_one(spec, limits)).await;
            match r {
                Ok(Ok(ok)) => Some(ok),
                Ok(Err(e)) => {
                    tracing::error!(server = %spec.id, at = %spec.describe(), "MCP server left out: {e}");
                    None
                }
                Err(_) => {
                    tracing::error!(server = %spec.id, at = %spec.describe(),
                        "MCP server left out: no answer within {} s", limits.connect_timeout.as_secs());
                    None
                }
            }
        });
        let mut hub = McpHub {
            limits,
            ..McpHub::default()
        };
        for (spec, connected) in specs.iter().zip(join_all(attempts).await) {
            let Some((service, tools)) = connected else {
                continue;
            };
            let index = hub.servers.len();
            let (offered, apps) = hub.add_tools(index, &spec.id, tools);
            tracing::info!(server = %spec.id, at = %spec.describe(), tools = offered,
                apps = apps.resources.len(), "MCP server connected");
            hub.servers.push(Server {
                id: spec.id.clone(),
                hash: apps::server_hash(&spec.id, &spec.describe()),
                service,
                apps,
            });
        }
        hub
    }

    /// Add server `index`'s tools within the bounds; returns how many are offered to the model
    /// and what apps may use.
    fn add_tools(&mut self, index: usize, id: &str, tools: Vec<Value>) -> (usize, apps::AppIndex) {
        let mut offered = 0;
        let mut index_of_apps = apps::AppIndex::default();
        let total = tools.len();
        for tool in tools {
            if index_of_apps.tools.len() == self.limits.max_tools {
                tracing::warn!(server = %id, "MCP server lists {total} tools; only the first {} are used (--mcp-max-tools)", self.limits.max_tools);
                break;
            }
            let (app, visibility) = apps::ui_meta(&tool);
            match tool_definition(id, &tool) {
                Ok((_, name, _)) if !visibility.model => {
                    if visibility.app {
                        index_of_apps.tools.insert(name, visibility);
                    }
                }
                Ok((offered_name, name, definition)) => {
                    if self.by_name.contains_key(&offered_name) {
                        tracing::warn!(server = %id, tool = %offered_name, "MCP tool listed twice; the first is kept");
                        continue;
                    }
                    if let Some(uri) = &app {
                        index_of_apps.resources.insert(uri.clone());
                    }
                    index_of_apps.tools.insert(name.clone(), visibility);
                    self.by_name.insert(offered_name.clone(), self.tools.len());
                    self.tools.push(McpTool {
                        offered: offered_name,
                        server: index,
                        name,
                        definition,
                        app,
                    });
                    offered += 1;
                }
                Err(why) => tracing::warn!(server = %id, "MCP tool left out: {why}"),
            }
        }
        (offered, index_of_apps)
    }

    /// The tools offered, in the servers' order.
    pub fn tools(&self) -> &[McpTool] {
        &self.tools
    }

    /// The ids of the connected servers.
    pub fn server_ids(&self) -> impl Iterator<Item = &str> {
        self.servers.iter().map(|s| s.id.as_str())
    }

    /// `offered` names a tool of a connected server.
    pub fn has(&self, offered: &str) -> bool {
        self.by_name.contains_key(offered)
    }

    /// The configured bounds.
    pub fn limits(&self) -> &McpLimits {
        &self.limits
    }

    /// The id of the server of tool `offered`.
    pub fn server_of(&self, offered: &str) -> Option<&str> {
        let tool = &self.tools[*self.by_name.get(offered)?];
        Some(self.servers[tool.server].id.as_str())
    }

    /// Call tool `offered` with the model's argument text. Every failure (bad arguments,
    /// unknown tool, transport, timeout, the tool's own error) is an [`Outcome`] the model reads;
    /// only the run's cancellation is not.
    pub async fn call(
        &self,
        offered: &str,
        arguments: &str,
        cancel: &CancellationToken,
    ) -> Result<Outcome, Cancelled> {
        let Some(tool) = self.by_name.get(offered).map(|&i| &self.tools[i]) else {
            return Ok(Outcome::error(format!(
                "there is no tool named '{}'",
                result::cut(offered, 80)
            )));
        };
        let server = &self.servers[tool.server];
        let args = match parse_arguments(arguments) {
            Ok(a) => a,
            Err(e) => return Ok(Outcome::error(e)),
        };
        let params = CallToolRequestParams::new(tool.name.clone()).with_arguments(args);
        let call = server.service.peer().call_tool(params);
        // Dropping the request future cancels it on the server (`notifications/cancelled`).
        let answer = tokio::select! {
            _ = cancel.cancelled() => return Err(Cancelled),
            a = tokio::time::timeout(self.limits.call_timeout, call) => a,
        };
        Ok(match answer {
            Err(_) => Outcome::error(format!(
                "the MCP tool '{}' of server '{}' did not answer within {} s",
                tool.name,
                server.id,
                self.limits.call_timeout.as_secs()
            )),
            Ok(Err(e)) => Outcome::error(format!(
                "the MCP server '{}' failed to run '{}': {}",
                server.id,
                tool.name,
                result::cut(&chain(&e), 500)
            )),
            Ok(Ok(r)) => match serde_json::to_value(&r) {
                Ok(v) => {
                    let mut o = result::outcome(&v, self.limits.max_result_bytes);
                    o.bytes = v.to_string().len();
                    if o.bytes <= self.limits.max_result_bytes {
                        o.raw = Some(v);
                    }
                    o
                }
                Err(e) => Outcome::error(format!("the MCP result could not be read: {e}")),
            },
        })
    }
}

/// The chat `tools` entry of an MCP tool (JSON of `Tool`): `(offered name, own name, entry)`,
/// or why it is left out.
fn tool_definition(server: &str, tool: &Value) -> Result<(String, String, Value), String> {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let offered = format!("{PREFIX}{server}__{name}");
    if name.is_empty()
        || offered.len() > MAX_NAME_LEN
        || !offered
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
    {
        return Err(format!(
            "'{}' does not make a tool name of at most {MAX_NAME_LEN} characters [A-Za-z0-9_-]",
            result::cut(&offered, 80)
        ));
    }
    let mut schema = match tool.get("inputSchema") {
        Some(Value::Object(o)) => o.clone(),
        _ => Map::new(),
    };
    // Chat APIs want an object schema; `$schema` is noise to them.
    schema.remove("$schema");
    schema.insert("type".into(), json!("object"));
    schema.entry("properties").or_insert_with(|| json!({}));
    let schema = Value::Object(schema);
    let size = schema.to_string().len();
    if size > MAX_SCHEMA_BYTES {
        return Err(format!(
            "'{offered}': its input schema is {size} bytes (at most {MAX_SCHEMA_BYTES})"
        ));
    }
    let mut function = Map::new();
    function.insert("name".into(), json!(offered));
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .or_else(|| tool.get("title").and_then(Value::as_str))
        .unwrap_or("");
    if !description.is_empty() {
        function.insert(
            "description".into(),
            json!(result::cut(description, MAX_DESCRIPTION_CHARS)),
        );
    }
    function.insert("parameters".into(), schema);
    Ok((
        offered,
        name.to_string(),
        json!({"type": "function", "function": function}),
    ))
}

/// The model's argument text as an object (empty text: no arguments).
fn parse_arguments(arguments: &str) -> Result<Map<String, Value>, String> {
    if arguments.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(arguments) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err("the arguments must be a JSON object".into()),
        Err(e) => Err(format!("the arguments are not valid JSON: {e}")),
    }
}

/// An error and its causes, joined.
fn chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests;

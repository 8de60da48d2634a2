//! MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`) of the `--mcp` servers.
//!
//! A tool that links a UI (`_meta.ui.resourceUri: "ui://…"`, or the older
//! `_meta["ui/resourceUri"]`) gets, when the model calls it, an `mcp-apps` activity
//! `{result, resourceUri, serverHash, serverId, toolInput}` besides its result: the shape the
//! official `@ag-ui/mcp-apps-middleware` emits and the studio's MCP Apps host renders (in a
//! sandboxed frame on an opaque origin: the HTML never runs on ours). The host then asks for the
//! HTML, and the view for its own tool calls, with runs whose
//! `forwardedProps.__proxiedMCPRequest = {serverHash?, serverId?, method, params}`;
//! [`McpHub::app_request`] answers them:
//! - `resources/read` only of a `ui://` resource a tool of that same server links, within
//!   `--mcp-max-resource-bytes` and the call timeout, HTML only;
//! - `tools/call` only of a tool of that same server whose `_meta.ui.visibility` includes
//!   `"app"` (absent: both audiences, as the spec says), arguments and result bounded, within the
//!   call timeout, at most [`MAX_APP_REQUESTS_IN_FLIGHT`] app requests at once over all servers;
//!   a tool whose visibility is `["app"]` alone is never offered to the model;
//! - `ping`; anything else is refused.
//!
//! Each proxied request is one run and makes at most one MCP request.

use std::collections::{HashMap, HashSet};

use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::{chain, result, McpHub, Outcome, Server};

/// The MCP Apps extension's id (announced in the client's capabilities).
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's HTML.
pub const APP_MIME: &str = "text/html;profile=mcp-app";
/// Longest `ui://` URI taken from a server or a client.
pub const MAX_URI_LEN: usize = 2048;
/// App requests served at once, over all servers; more are refused (the view may retry).
pub const MAX_APP_REQUESTS_IN_FLIGHT: usize = 8;
/// Largest arguments of a view's `tools/call`, in bytes of JSON.
pub const MAX_APP_ARGUMENT_BYTES: usize = 64 * 1024;
/// Longest name or URI a refusal repeats.
const MAX_ECHO: usize = 128;

/// Who may call a tool (`_meta.ui.visibility`: `"model"`, `"app"`; absent or empty: both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visibility {
    pub model: bool,
    pub app: bool,
}

/// A tool's UI resource (a `ui://` URI within [`MAX_URI_LEN`]) and visibility, from its JSON.
pub(super) fn ui_meta(tool: &Value) -> (Option<String>, Visibility) {
    let meta = tool.get("_meta");
    let ui = meta.and_then(|m| m.get("ui"));
    let uri = ui
        .and_then(|u| u.get("resourceUri"))
        .or_else(|| meta.and_then(|m| m.get("ui/resourceUri")))
        .and_then(Value::as_str)
        .filter(|u| valid_uri(u))
        .map(str::to_string);
    let listed: Vec<&str> = ui
        .and_then(|u| u.get("visibility"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let visibility = if listed.is_empty() {
        Visibility {
            model: true,
            app: true,
        }
    } else {
        Visibility {
            model: listed.contains(&"model"),
            app: listed.contains(&"app"),
        }
    };
    (uri, visibility)
}

fn valid_uri(u: &str) -> bool {
    u.starts_with("ui://") && u.len() <= MAX_URI_LEN && !u.chars().any(char::is_control)
}

/// What one server's tools say about apps: every tool's visibility (by its own name) and the
/// resources they link (the only ones a view may read).
#[derive(Debug, Default)]
pub(super) struct AppIndex {
    pub tools: HashMap<String, Visibility>,
    pub resources: HashSet<String>,
}

/// The server's hash in activities: FNV-1a of its id and where it is (the middleware uses an MD5
/// of its transport; clients only hand it back).
pub(super) fn server_hash(id: &str, at: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes().chain([0]).chain(at.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Where a tool call's app lives: what its `mcp-apps` activity names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppLink {
    pub resource_uri: String,
    pub server_id: String,
    pub server_hash: String,
}

impl AppLink {
    /// The activity's content. The result is the server's own when it fits
    /// `--mcp-max-result-bytes`, else the text the model read; `arguments` is the model's
    /// argument text (an object, else `{}`).
    pub fn content(&self, outcome: &Outcome, arguments: &str) -> Value {
        let result = outcome
            .raw
            .clone()
            .unwrap_or_else(|| json!({"content": [{"type": "text", "text": outcome.text}]}));
        let input = match serde_json::from_str::<Value>(arguments) {
            Ok(v @ Value::Object(_)) => v,
            _ => json!({}),
        };
        json!({
            "result": result,
            "resourceUri": self.resource_uri,
            "serverHash": self.server_hash,
            "serverId": self.server_id,
            "toolInput": input,
        })
    }
}

/// Why a proxied request has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppError {
    /// The request is malformed or asks for what a view may not have.
    #[error("{0}")]
    Refused(String),
    /// The MCP server failed, took too long or sent too much.
    #[error("{0}")]
    Failed(String),
    /// The run was cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl McpHub {
    /// The app of tool `offered` (a model-visible tool linking a `ui://` resource), if any.
    pub fn app_of(&self, offered: &str) -> Option<AppLink> {
        let tool = &self.tools[*self.by_name.get(offered)?];
        let server = &self.servers[tool.server];
        Some(AppLink {
            resource_uri: tool.app.clone()?,
            server_id: server.id.clone(),
            server_hash: server.hash.clone(),
        })
    }

    /// Answer a view's `forwardedProps.__proxiedMCPRequest`: the MCP result, or why not.
    pub async fn app_request(
        &self,
        request: &Value,
        cancel: &CancellationToken,
    ) -> Result<Value, AppError> {
        let refuse = |m: String| Err(AppError::Refused(m));
        let Some(req) = request.as_object() else {
            return refuse("the proxied MCP request must be an object".into());
        };
        let text = |k: &str| req.get(k).and_then(Value::as_str);
        // Looked up by id first, then by hash, as the middleware does.
        let server = match (text("serverId"), text("serverHash")) {
            (Some(id), _) if self.servers.iter().any(|s| s.id == id) => {
                self.servers.iter().find(|s| s.id == id)
            }
            (_, Some(hash)) => self.servers.iter().find(|s| s.hash == hash),
            _ => None,
        };
        let Some(server) = server else {
            let named = text("serverId").or(text("serverHash")).unwrap_or("(none)");
            return refuse(format!(
                "unknown MCP server '{}'",
                result::cut(named, MAX_ECHO)
            ));
        };
        let Some(method) = text("method") else {
            return refuse("the proxied MCP request's method must be a string".into());
        };
        let empty = Map::new();
        let params = match req.get("params") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(p)) => p,
            Some(_) => return refuse("the proxied MCP request's params must be an object".into()),
        };
        if method == "ping" {
            return Ok(json!({}));
        }
        if method != "resources/read" && method != "tools/call" {
            return refuse(format!(
                "MCP method '{}' is not allowed from an app (allowed: resources/read, tools/call, ping)",
                result::cut(method, MAX_ECHO)
            ));
        }
        // Only a server that owns an app serves apps: a view is bound to its own server.
        if server.apps.resources.is_empty() {
            return refuse(format!(
                "MCP server '{}' has no app (no tool of it links a ui:// resource)",
                server.id
            ));
        }
        let Ok(_permit) = self.app_slots.try_acquire() else {
            return Err(AppError::Failed(format!(
                "more than {MAX_APP_REQUESTS_IN_FLIGHT} app requests at once; try again"
            )));
        };
        if method == "resources/read" {
            self.read_app_resource(server, params, cancel).await
        } else {
            self.app_tool_call(server, params, cancel).await
        }
    }

    async fn read_app_resource(
        &self,
        server: &Server,
        params: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<Value, AppError> {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Err(AppError::Refused(
                "resources/read needs params.uri (a string)".into(),
            ));
        };
        if !server.apps.resources.contains(uri) {
            return Err(AppError::Refused(format!(
                "no tool of MCP server '{}' links the resource '{}'",
                server.id,
                result::cut(uri, MAX_ECHO)
            )));
        }
        let read = server
            .service
            .peer()
            .read_resource(ReadResourceRequestParams::new(uri));
        let answer = self.bounded(server, "resources/read", read, cancel).await?;
        let limit = self.limits.max_resource_bytes;
        // The view runs the first content, which must be this resource's HTML.
        let first = answer
            .get("contents")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .ok_or_else(|| AppError::Failed(format!("'{uri}' has no contents")))?;
        let mime = first.get("mimeType").and_then(Value::as_str).unwrap_or("");
        if !mime.starts_with("text/html") {
            return Err(AppError::Failed(format!(
                "'{uri}' is '{}', not HTML",
                result::cut(mime, 60)
            )));
        }
        let size = first.to_string().len();
        if size > limit {
            return Err(AppError::Failed(format!(
                "the resource '{uri}' of MCP server '{}' is {size} bytes, more than {limit} (--mcp-max-resource-bytes)",
                server.id
            )));
        }
        Ok(json!({"contents": [first]}))
    }

    async fn app_tool_call(
        &self,
        server: &Server,
        params: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<Value, AppError> {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        match server.apps.tools.get(name) {
            Some(v) if v.app => {}
            Some(_) => {
                return Err(AppError::Refused(format!(
                    "the tool '{}' of MCP server '{}' is not visible to apps (_meta.ui.visibility)",
                    result::cut(name, MAX_ECHO),
                    server.id
                )))
            }
            None => {
                return Err(AppError::Refused(format!(
                    "MCP server '{}' has no tool '{}' (an app calls only tools of its own server)",
                    server.id,
                    result::cut(name, MAX_ECHO)
                )))
            }
        }
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(a)) => a.clone(),
            Some(_) => {
                return Err(AppError::Refused(
                    "tools/call arguments must be an object".into(),
                ))
            }
        };
        let size = Value::Object(arguments.clone()).to_string().len();
        if size > MAX_APP_ARGUMENT_BYTES {
            return Err(AppError::Refused(format!(
                "tools/call arguments are {size} bytes (at most {MAX_APP_ARGUMENT_BYTES})"
            )));
        }
        let call = server
            .service
            .peer()
            .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(arguments));
        let answer = self.bounded(server, "tools/call", call, cancel).await?;
        let size = answer.to_string().len();
        if size > self.limits.max_result_bytes {
            return Err(AppError::Failed(format!(
                "the result of '{name}' is {size} bytes, more than {} (--mcp-max-result-bytes)",
                self.limits.max_result_bytes
            )));
        }
        Ok(answer)
    }

    /// Await one request within the call timeout and the run's cancellation, as JSON.
    async fn bounded<T: serde::Serialize, E: std::error::Error>(
        &self,
        server: &Server,
        what: &str,
        request: impl std::future::Future<Output = Result<T, E>>,
        cancel: &CancellationToken,
    ) -> Result<Value, AppError> {
        let timeout = self.limits.call_timeout;
        // Dropping the request future cancels it on the server (`notifications/cancelled`).
        let answer = tokio::select! {
            _ = cancel.cancelled() => return Err(AppError::Cancelled),
            a = tokio::time::timeout(timeout, request) => a,
        };
        match answer {
            Err(_) => Err(AppError::Failed(format!(
                "MCP server '{}' did not answer {what} within {} s",
                server.id,
                timeout.as_secs()
            ))),
            Ok(Err(e)) => Err(AppError::Failed(format!(
                "MCP server '{}' failed {what}: {}",
                server.id,
                result::cut(&chain(&e), 500)
            ))),
            Ok(Ok(r)) => serde_json::to_value(&r)
                .map_err(|e| AppError::Failed(format!("the MCP answer could not be read: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests;

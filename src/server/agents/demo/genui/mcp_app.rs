//! `mcp_app`: an MCP App (SEP-1865, `io.modelcontextprotocol/ui`) from a built-in, in-process
//! "MCP server": the tool `roll_dice` links its UI with `_meta.ui.resourceUri`; the run calls
//! it and emits the `mcp-apps` activity `{result, resourceUri, serverHash, serverId, toolInput}`
//! the official `@ag-ui/mcp-apps-middleware` emits. The UI's HTML ([`DICE_HTML`], embedded in
//! the binary) is fetched the middleware's way: a run whose
//! `forwardedProps.__proxiedMCPRequest = {serverHash, serverId?, method, params}` is answered by
//! `RUN_FINISHED.result` alone. The app's own `tools/call` comes back the same way.
//!
//! One difference from the middleware, on purpose: a request this server cannot answer (unknown
//! server, method, resource or tool; malformed) ends the run with `RUN_ERROR` `INVALID_INPUT`
//! and a clear message, where the middleware finishes the run with `result: {error}`.

use serde_json::{json, Map, Value};

use crate::protocol::event::EventKind;
use crate::protocol::types::Content;
use crate::server::agents::{AgentError, RunContext, RunEnd};
use crate::wire::RunErrorCode;

use super::super::text::stream_text;
use super::super::tools::emit_tool_call;
use super::{clip, fnv, snapshot, PROXIED_MCP_PROP};

pub(super) use crate::protocol::genui::MCP_APPS as MCP_APPS_ACTIVITY;
/// The built-in server's id.
pub(super) const SERVER_ID: &str = "agui-studio-demo";
/// The built-in server's hash, made the middleware's way: the MD5 of its transport as JSON,
/// `{"type":"http","url":"builtin://agui-studio/demo"}` (it has no real URL).
pub(super) const SERVER_HASH: &str = "c31c417788059664abad85cc394a16d4";
pub(super) const DICE_URI: &str = "ui://agui-studio/dice";
pub(super) const DICE_TOOL: &str = "roll_dice";
/// The MIME type of an MCP App's HTML.
pub(super) const APP_MIME: &str = "text/html;profile=mcp-app";
/// The dice app: HTML with an inline script speaking the MCP Apps bridge over `postMessage`.
pub(super) const DICE_HTML: &str = include_str!("mcp_app.html");
/// Longest URI, method or tool name a refusal repeats.
const MAX_ECHO: usize = 128;
const MAX_SIDES: u64 = 100;
const MAX_DICE: u64 = 10;

/// The tool as the server lists it (`tools/list`).
fn dice_tool() -> Value {
    json!({
        "name": DICE_TOOL,
        "description": "Roll dice. Shows the rolls in an interactive view.",
        "inputSchema": {"type": "object", "properties": {
            "sides": {"type": "integer", "minimum": 2, "maximum": MAX_SIDES},
            "count": {"type": "integer", "minimum": 1, "maximum": MAX_DICE}
        }},
        "_meta": {"ui": {"resourceUri": DICE_URI}}
    })
}

/// What `GET /api/agents` says about the built-in MCP server (under `mcpServer`).
pub fn mcp_server_info() -> Value {
    json!({"serverId": SERVER_ID, "serverHash": SERVER_HASH, "tools": [dice_tool()]})
}

/// Run `roll_dice`: a `CallToolResult`. Bad arguments are the tool's error (`isError`), as MCP
/// reports them, not a failed run. Rolls are a function of `seed`, so runs are reproducible.
pub(super) fn roll(args: &Value, seed: u64) -> Value {
    let int = |key: &str, default: u64, max: u64, min: u64| match args.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|n| (min..=max).contains(n))
            .ok_or(format!("{key} must be a whole number from {min} to {max}")),
    };
    let checked = if args.is_object() {
        int("sides", 6, MAX_SIDES, 2).and_then(|s| Ok((s, int("count", 2, MAX_DICE, 1)?)))
    } else {
        Err("the arguments must be an object".to_string())
    };
    let (sides, count) = match checked {
        Ok(v) => v,
        Err(e) => {
            return json!({"content": [{"type": "text", "text": format!("roll_dice: {e}")}], "isError": true})
        }
    };
    let mut x = seed | 1;
    let rolls: Vec<u64> = (0..count)
        .map(|_| {
            // xorshift64: plenty for dice.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % sides + 1
        })
        .collect();
    let total: u64 = rolls.iter().sum();
    let list: Vec<String> = rolls.iter().map(u64::to_string).collect();
    json!({
        "content": [{"type": "text", "text": format!("Rolled {count}d{sides}: {} (total {total})", list.join(", "))}],
        "structuredContent": {"sides": sides, "count": count, "rolls": rolls, "total": total}
    })
}

/// The text of a `CallToolResult` (its text blocks, joined), as the middleware puts it in the
/// tool message.
fn result_text(result: &Value) -> String {
    let texts: Vec<&str> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    texts.join("\n")
}

pub async fn mcp_app(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let intro = stream_text(ctx, "Let me roll the dice with the `roll_dice` tool of the built-in MCP server; the tool comes with its own interactive view (an MCP App).").await?;
    let call = ctx.new_id("call");
    let input = json!({"sides": 20, "count": 3});
    emit_tool_call(ctx, &call, DICE_TOOL, Some(&intro), &input, 12).await?;
    let result = roll(&input, fnv(ctx.run_id()));
    let message_id = ctx.new_id("tool");
    ctx.emit(EventKind::ToolCallResult {
        message_id,
        tool_call_id: call,
        content: Content::Text(result_text(&result)),
        role: None,
    })
    .await?;
    let id = ctx.new_id("mcp-apps");
    let content = json!({
        "result": result,
        "resourceUri": DICE_URI,
        "serverHash": SERVER_HASH,
        "serverId": SERVER_ID,
        "toolInput": input
    });
    ctx.emit(snapshot(&id, MCP_APPS_ACTIVITY, content, Some(true)))
        .await?;
    stream_text(
        ctx,
        &format!(
            "{} The view above shows it; its buttons talk to this page over the MCP Apps bridge.",
            result_text(&result)
        ),
    )
    .await?;
    Ok(RunEnd::success())
}

fn refuse(message: String) -> AgentError {
    AgentError::failed(RunErrorCode::InvalidInput, message)
}

/// The result of one proxied MCP request, or why there is none.
pub(super) fn proxied_result(props: &Value, seed: u64) -> Result<Value, String> {
    let Some(req) = props.get(PROXIED_MCP_PROP).and_then(Value::as_object) else {
        return Err(format!(
            "forwardedProps.{PROXIED_MCP_PROP} must be an object"
        ));
    };
    // The middleware looks a server up by id first, then by hash.
    let by_id = req.get("serverId").and_then(Value::as_str) == Some(SERVER_ID);
    let by_hash = req.get("serverHash").and_then(Value::as_str) == Some(SERVER_HASH);
    if !by_id && !by_hash {
        let named = req
            .get("serverId")
            .or_else(|| req.get("serverHash"))
            .and_then(Value::as_str)
            .unwrap_or("(none)");
        return Err(format!(
            "unknown MCP server '{}': this agent serves only '{SERVER_ID}' (serverHash {SERVER_HASH})",
            clip(named, MAX_ECHO)
        ));
    }
    let Some(method) = req.get("method").and_then(Value::as_str) else {
        return Err(format!("{PROXIED_MCP_PROP}.method must be a string"));
    };
    let empty = Map::new();
    let params = match req.get("params") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return Err(format!("{PROXIED_MCP_PROP}.params must be an object")),
    };
    match method {
        "resources/read" => {
            let Some(uri) = params.get("uri").and_then(Value::as_str) else {
                return Err("resources/read needs params.uri (a string)".into());
            };
            if uri != DICE_URI {
                return Err(format!(
                    "the demo MCP server has no resource '{}' (it has {DICE_URI})",
                    clip(uri, MAX_ECHO)
                ));
            }
            Ok(json!({"contents": [{
                "uri": DICE_URI,
                "mimeType": APP_MIME,
                "text": DICE_HTML,
                "_meta": {"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": true}}
            }]}))
        }
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or("");
            if name != DICE_TOOL {
                return Err(format!(
                    "the demo MCP server has no tool '{}' (it has {DICE_TOOL})",
                    clip(name, MAX_ECHO)
                ));
            }
            let args = params.get("arguments").cloned().unwrap_or(json!({}));
            Ok(roll(&args, seed))
        }
        "ping" => Ok(json!({})),
        other => Err(format!(
            "MCP method '{}' is not allowed through the UI proxy (allowed: resources/read, tools/call, ping)",
            clip(other, MAX_ECHO)
        )),
    }
}

/// Answer `forwardedProps.__proxiedMCPRequest`: no events between `RUN_STARTED` and
/// `RUN_FINISHED`, whose `result` is the MCP result.
pub async fn answer_proxied_request(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let result = proxied_result(&ctx.input.forwarded_props, fnv(ctx.run_id())).map_err(refuse)?;
    Ok(RunEnd {
        result: Some(result),
        ..RunEnd::default()
    })
}

#[cfg(test)]
mod tests;

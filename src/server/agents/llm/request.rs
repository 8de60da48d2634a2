//! From AG-UI to the Chat Completions API: the conversation (every role, content parts, the
//! run's context) as `messages`, and the frontend and backend tools as `tools`.
//!
//! Chat APIs are stricter than AG-UI threads: an assistant message with `tool_calls` must be
//! followed at once by one `tool` message per call, and a `tool` message must answer a call.
//! The mapping repairs threads that break this (calls never answered, results out of place).
//!
//! Media URLs are fetched by the model server, from where it runs, so a client could use it to
//! reach what only that server can (`http://169.254.169.254/…`, `file:///…`, an intranet
//! host): only the schemes of `--llm-image-schemes` are forwarded, anything else is refused.

use std::collections::{HashMap, HashSet};

use crate::server::runs::context::InputError;
use serde_json::{json, Map, Value};

use crate::protocol::types::{Context, Message, RunAgentInput, Tool};

/// What a tool call that never got an answer says to the model.
const UNANSWERED: &str = "(no result: this tool call was not answered)";

mod media;

pub use media::check_media;
use media::user_content;

/// The chat `messages` for a run's input; a media URL whose scheme is not in `schemes` makes
/// it an error (history stored before the request check, or input that skipped it).
pub fn messages(input: &RunAgentInput, schemes: &[String]) -> Result<Vec<Value>, InputError> {
    let mut out = Vec::new();
    // Results are placed right after the call they answer, wherever the thread has them.
    let mut results: HashMap<&str, Value> = HashMap::new();
    let mut called: HashSet<&str> = HashSet::new();
    for m in &input.messages {
        match m {
            Message::Tool(t) => {
                results.entry(t.tool_call_id.as_str()).or_insert_with(|| {
                    let text = t.content.text();
                    let content = match &t.error {
                        Some(e) if text.is_empty() => format!("Error: {e}"),
                        Some(e) => format!("Error: {e}\n{text}"),
                        None => text,
                    };
                    json!({"role": "tool", "tool_call_id": t.tool_call_id, "content": content})
                });
            }
            Message::Assistant(a) => {
                for tc in a.tool_calls.iter().flatten() {
                    called.insert(tc.id.as_str());
                }
            }
            _ => {}
        }
    }
    let mut placed: HashSet<&str> = HashSet::new();
    for m in &input.messages {
        match m {
            // Developer messages are system messages to servers whose chat templates know only
            // the classic roles (most local ones); OpenAI treats them alike.
            Message::System(t) | Message::Developer(t) => {
                out.push(with_name(
                    json!({"role": "system", "content": t.content}),
                    &t.name,
                ));
            }
            Message::User(u) => {
                out.push(with_name(
                    json!({"role": "user", "content": user_content(&u.content, &u.id, schemes)?}),
                    &u.name,
                ));
            }
            Message::Assistant(a) => {
                let calls: Vec<_> = a.tool_calls.iter().flatten().collect();
                let text = a.content.clone().filter(|c| !c.is_empty());
                if text.is_none() && calls.is_empty() {
                    continue;
                }
                let mut msg = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    msg["tool_calls"] = calls
                        .iter()
                        .map(|tc| {
                            json!({"id": tc.id, "type": "function", "function": {
                                "name": tc.function.name,
                                "arguments": arguments_text(&tc.function.arguments),
                            }})
                        })
                        .collect();
                }
                out.push(with_name(msg, &a.name));
                for tc in calls {
                    if !placed.insert(tc.id.as_str()) {
                        continue;
                    }
                    out.push(results.get(tc.id.as_str()).cloned().unwrap_or_else(
                        || json!({"role": "tool", "tool_call_id": tc.id, "content": UNANSWERED}),
                    ));
                }
            }
            Message::Tool(t) if !called.contains(t.tool_call_id.as_str()) => {
                // A result for a call the thread does not hold: keep what it says, as text.
                out.push(json!({"role": "user", "content": format!(
                    "[result of tool call {}]\n{}", t.tool_call_id, t.content.text()
                )}));
            }
            // Placed after their call above.
            Message::Tool(_) => {}
            // Reasoning is the model's own scratchpad (providers ask not to send it back), and
            // activities are client-side only.
            Message::Reasoning(_) | Message::Activity(_) => {}
        }
    }
    let context = context_message(&input.context);
    if let Some(c) = context {
        // After the app's own system prompt, which models weigh most when it comes first.
        let at = out
            .iter()
            .position(|m| m["role"] != "system")
            .unwrap_or(out.len());
        out.insert(at, c);
    }
    Ok(out)
}

fn with_name(mut msg: Value, name: &Option<String>) -> Value {
    if let Some(n) = name.as_ref().filter(|n| !n.is_empty()) {
        msg["name"] = json!(n);
    }
    msg
}

/// Streamed arguments are conventionally JSON; servers that parse them reject an empty string.
pub fn arguments_text(args: &str) -> &str {
    if args.trim().is_empty() {
        "{}"
    } else {
        args
    }
}

fn context_message(context: &[Context]) -> Option<Value> {
    if context.is_empty() {
        return None;
    }
    let mut text = String::from("Context provided by the application:");
    for c in context {
        text.push_str(&format!("\n- {}: {}", c.description, c.value));
    }
    Some(json!({"role": "system", "content": text}))
}

/// A frontend tool as a chat `tools` entry.
pub fn frontend_tool(t: &Tool) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), json!(t.name));
    if !t.description.is_empty() {
        function.insert("description".into(), json!(t.description));
    }
    // Servers that validate tool schemas want an object schema; an absent one means no
    // arguments.
    let parameters = match &t.parameters {
        Some(p) if p.is_object() => p.clone(),
        _ => json!({"type": "object", "properties": {}}),
    };
    function.insert("parameters".into(), parameters);
    json!({"type": "function", "function": function})
}

#[cfg(test)]
mod tests;

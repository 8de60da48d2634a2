//! Side runs — an MCP App's own requests (`forwardedProps.__proxiedMCPRequest`, see
//! [`crate::server::mcp::apps`]) — are answered only in a thread of the requesting user that
//! holds an MCP App of the server the request names: an app reaches its server's tools because
//! the agent showed it in that conversation, not because someone can name a server.

use serde_json::Value;

use crate::protocol::genui::{MCP_APPS, PROXIED_MCP_REQUEST};
use crate::protocol::reduce::Conversation;
use crate::protocol::types::{Message, RunAgentInput};
use crate::server::error::ApiError;

/// Whether `conv` holds an `mcp-apps` activity of the server `input`'s proxied request names
/// (by `serverId`, else by `serverHash`, as the request is looked up).
pub(super) fn names_an_app_of(conv: &Conversation, input: &RunAgentInput) -> bool {
    let req = input.forwarded_props.get(PROXIED_MCP_REQUEST);
    let field = |v: Option<&Value>, k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let (id, hash) = (field(req, "serverId"), field(req, "serverHash"));
    if id.is_none() && hash.is_none() {
        return false;
    }
    conv.messages.iter().any(|m| match m {
        Message::Activity(a) if a.activity_type == MCP_APPS => {
            let of = |k: &str| a.content.get(k).and_then(Value::as_str);
            match (&id, &hash) {
                (Some(id), _) if of("serverId") == Some(id) => true,
                (_, Some(hash)) => of("serverHash") == Some(hash),
                _ => false,
            }
        }
        _ => false,
    })
}

/// The refusal of a side run in a thread without such an app (404: as for a thread there is
/// none of, nothing is said about what the thread holds beyond that).
pub(super) fn no_app(thread_id: &str) -> ApiError {
    ApiError::NotFound(format!(
        "thread '{thread_id}' shows no MCP App of the server this request names"
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::types::ActivityMessage;

    fn input(request: Value) -> RunAgentInput {
        let mut input = RunAgentInput::new("t", "r");
        input.forwarded_props = json!({ PROXIED_MCP_REQUEST: request });
        input
    }

    #[test]
    fn only_a_server_whose_app_the_thread_shows_is_reachable() {
        let mut conv = Conversation::default();
        let ask = |r: Value, c: &Conversation| names_an_app_of(c, &input(r));
        let by_id = json!({"serverId": "py", "method": "ping"});
        assert!(!ask(by_id.clone(), &conv), "an empty thread");
        let content = json!({"serverId": "py", "serverHash": "h1", "resourceUri": "ui://a"});
        conv.messages.push(Message::Activity(ActivityMessage {
            id: "a1".into(),
            activity_type: MCP_APPS.into(),
            content: content.as_object().unwrap().clone(),
            metadata: None,
            subagent_run_id: None,
        }));
        assert!(ask(by_id, &conv));
        assert!(ask(json!({"serverHash": "h1", "method": "ping"}), &conv));
        assert!(!ask(json!({"serverId": "other", "method": "ping"}), &conv));
        assert!(!ask(json!({"serverHash": "h2", "method": "ping"}), &conv));
        assert!(!ask(json!({"method": "ping"}), &conv), "no server named");
        // An id that misses falls back to the hash, as the request is looked up.
        assert!(ask(json!({"serverId": "x", "serverHash": "h1"}), &conv));
    }
}

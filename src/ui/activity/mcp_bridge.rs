//! The host side of the MCP Apps bridge (SEP-1865, `io.modelcontextprotocol/ui`): what a
//! JSON-RPC message from an app's frame asks of the studio, and the messages the studio sends
//! it. Pure: the component ([`super::mcp_app`]) carries the actions out.

use serde_json::{json, Map, Value};

/// The MCP Apps protocol version the studio speaks.
pub const PROTOCOL_VERSION: &str = "2026-01-26";
/// The longest text of a `ui/message` the studio sends on.
pub const MAX_MESSAGE_CHARS: usize = 20_000;

/// What an app's message asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// Answer at once with this JSON-RPC response.
    Reply(Value),
    /// `ui/notifications/initialized`: the app is ready for the tool's input and result.
    Initialized,
    /// `ui/notifications/size-changed`.
    Height(f64),
    /// `ui/message`: send this text as the user's message, then answer request `id`.
    Message { id: Value, text: String },
    /// `ui/open-link`: ask the user, then answer request `id`.
    OpenLink { id: Value, url: String },
    /// `tools/call` or `resources/read`: run it through the agent, answer request `id`.
    Proxy {
        id: Value,
        method: String,
        params: Value,
    },
    /// Nothing to do (a notification the studio does not need, or not JSON-RPC).
    Nothing,
}

/// What the host tells the app about itself in `ui/initialize`.
#[derive(Debug, Clone, PartialEq)]
pub struct HostContext {
    pub dark: bool,
    pub width: u32,
    pub max_height: u32,
    pub locale: String,
}

impl HostContext {
    pub fn to_json(&self) -> Value {
        json!({
            "theme": if self.dark { "dark" } else { "light" },
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "containerDimensions": {"width": self.width, "maxHeight": self.max_height},
            "locale": self.locale,
            "platform": "web",
        })
    }
}

pub fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The `ui/notifications/tool-result` params from an activity's `result`: a `CallToolResult`
/// as is, anything else wrapped as its text and structured content.
pub fn tool_result(result: &Value) -> Value {
    if result.get("content").is_some_and(Value::is_array) {
        return result.clone();
    }
    let text = match result {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut r = json!({"content": [{"type": "text", "text": text}]});
    if result.is_object() {
        r["structuredContent"] = result.clone();
    }
    r
}

/// The text of a `ui/message`'s content blocks (text blocks only).
fn message_text(params: &Map<String, Value>) -> Option<String> {
    let blocks = match params.get("content") {
        Some(Value::Array(a)) => a.clone(),
        Some(one @ Value::Object(_)) => vec![one.clone()],
        _ => return None,
    };
    let text: Vec<&str> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let text = text.join("\n");
    (!text.trim().is_empty()).then(|| text.chars().take(MAX_MESSAGE_CHARS).collect())
}

/// Read one message from the app.
pub fn ask(msg: &Value, host: &HostContext) -> Ask {
    if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Ask::Nothing;
    }
    let Some(method) = msg.get("method").and_then(Value::as_str) else {
        // A response to something the host sent (teardown): nothing to do.
        return Ask::Nothing;
    };
    let empty = Map::new();
    let params = msg
        .get("params")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let Some(id) = msg
        .get("id")
        .filter(|i| i.is_string() || i.is_number())
        .cloned()
    else {
        return match method {
            "ui/notifications/initialized" => Ask::Initialized,
            "ui/notifications/size-changed" => params
                .get("height")
                .and_then(Value::as_f64)
                .map_or(Ask::Nothing, Ask::Height),
            _ => Ask::Nothing,
        };
    };
    match method {
        "ui/initialize" => Ask::Reply(response(
            &id,
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "hostInfo": {"name": "agui-studio", "version": env!("CARGO_PKG_VERSION")},
                "hostCapabilities": {
                    "openLinks": {},
                    "serverTools": {},
                    "serverResources": {},
                    "message": {"text": {}},
                },
                "hostContext": host.to_json(),
            }),
        )),
        "ping" => Ask::Reply(response(&id, json!({}))),
        "ui/request-display-mode" => Ask::Reply(response(&id, json!({"mode": "inline"}))),
        // Accepted; the studio keeps no model context of its own for an app.
        "ui/update-model-context" => Ask::Reply(response(&id, json!({}))),
        "ui/message" => match message_text(params) {
            Some(text) => Ask::Message { id, text },
            None => Ask::Reply(error(&id, -32602, "ui/message needs a text content block")),
        },
        "ui/open-link" => match params
            .get("url")
            .and_then(Value::as_str)
            .and_then(crate::ui::markdown::sanitize_url)
            .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
        {
            Some(url) => Ask::OpenLink { id, url },
            None => Ask::Reply(error(&id, -32602, "ui/open-link needs an http(s) url")),
        },
        "tools/call" | "resources/read" => Ask::Proxy {
            id,
            method: method.to_string(),
            params: Value::Object(params.clone()),
        },
        other => Ask::Reply(error(
            &id,
            -32601,
            &format!(
                "agui-studio does not support {}",
                other.chars().take(80).collect::<String>()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> HostContext {
        HostContext {
            dark: true,
            width: 600,
            max_height: 4000,
            locale: "en".into(),
        }
    }

    #[test]
    fn initialize_answers_with_host_context() {
        let a = ask(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
                "params": {"protocolVersion": "2026-01-26", "appInfo": {"name": "a", "version": "1"}, "appCapabilities": {}}}),
            &host(),
        );
        let Ask::Reply(r) = a else { panic!("{a:?}") };
        assert_eq!(r["id"], 1);
        assert_eq!(r["result"]["hostContext"]["theme"], "dark");
        assert_eq!(
            r["result"]["hostContext"]["containerDimensions"]["width"],
            600
        );
        assert_eq!(r["result"]["protocolVersion"], PROTOCOL_VERSION);
    }

    #[test]
    fn requests_and_notifications() {
        let h = host();
        let m = |v: Value| ask(&v, &h);
        assert_eq!(
            m(json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"})),
            Ask::Initialized
        );
        assert_eq!(
            m(
                json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"height": 321}})
            ),
            Ask::Height(321.0)
        );
        assert_eq!(
            m(json!({"jsonrpc": "2.0", "id": "a", "method": "ui/message",
                "params": {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image"}]}})),
            Ask::Message {
                id: json!("a"),
                text: "hi".into()
            }
        );
        assert_eq!(
            m(
                json!({"jsonrpc": "2.0", "id": 2, "method": "ui/open-link", "params": {"url": "https://example.com/x"}})
            ),
            Ask::OpenLink {
                id: json!(2),
                url: "https://example.com/x".into()
            }
        );
        assert!(
            matches!(m(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "t", "arguments": {}}})), Ask::Proxy { method, .. } if method == "tools/call")
        );
        // Not JSON-RPC, a response, an unknown notification: nothing.
        assert_eq!(m(json!({"type": "x"})), Ask::Nothing);
        assert_eq!(
            m(json!({"jsonrpc": "2.0", "id": 9, "result": {}})),
            Ask::Nothing
        );
        assert_eq!(
            m(json!({"jsonrpc": "2.0", "method": "ui/notifications/whatever"})),
            Ask::Nothing
        );
    }

    #[test]
    fn hostile_requests_get_errors() {
        let h = host();
        let m = |v: Value| ask(&v, &h);
        for (req, code) in [
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "ui/open-link", "params": {"url": "javascript:alert(1)"}}),
                -32602,
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "ui/open-link", "params": {"url": "data:text/html,x"}}),
                -32602,
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "ui/message", "params": {"content": "x"}}),
                -32602,
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "x".repeat(10_000)}),
                -32601,
            ),
        ] {
            let Ask::Reply(r) = m(req.clone()) else {
                panic!("{req}")
            };
            assert_eq!(r["error"]["code"], code, "{req}");
            assert!(r["error"]["message"].as_str().unwrap().len() < 200);
        }
        let long = "y".repeat(100_000);
        let Ask::Message { text, .. } =
            m(json!({"jsonrpc": "2.0", "id": 1, "method": "ui/message",
            "params": {"content": [{"type": "text", "text": long}]}}))
        else {
            panic!()
        };
        assert_eq!(text.chars().count(), MAX_MESSAGE_CHARS);
        // An id must be a string or a number.
        assert_eq!(
            m(json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ui/message"})),
            Ask::Nothing
        );
    }

    #[test]
    fn tool_results_are_call_tool_results() {
        assert_eq!(
            tool_result(&json!({"content": [{"type": "text", "text": "a"}]}))["content"][0]["text"],
            "a"
        );
        let r = tool_result(&json!({"temp": 21}));
        assert_eq!(r["structuredContent"]["temp"], 21);
        assert_eq!(r["content"][0]["text"], "{\"temp\":21}");
        assert_eq!(tool_result(&json!("plain"))["content"][0]["text"], "plain");
    }
}

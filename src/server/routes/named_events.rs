//! The seed-000 ("API contract") surface: `POST /agent/chat/stream` and `POST /agent/agent/stream`
//! take a `StreamRequest` and stream the run as named SSE events (`event: <name>` +
//! `data: <json>`), translated from our 1.1 events by [`crate::server::named_encoder`].
//!
//! Both paths run the same agent: the contract's "agent with sandbox" variant has nothing to add
//! here, since the demo agent's tools are local functions. The agent is `agent_id` when it names
//! an agent served here, else `demo`; an unknown `agent_id` is a 400 (the contract lists no 404).
//! Errors before the stream starts are JSON `{"error": {"code", "message"}}`: 400 for a body
//! that is not JSON (`invalid_json`), is not a `StreamRequest` or has no messages
//! (`invalid_request`) or names an unknown agent (`unknown_agent`); 413 past the body limit; 401
//! without the bearer token when one is configured.

use axum::extract::{Extension, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::protocol::types::{
    AssistantMessage, Content, ContentPart, MediaPart, Message, PartSource, RunAgentInput,
    TextMessage, TextPart, UserMessage,
};
use crate::server::accounts::User;
use crate::server::named_encoder::Encoder;
use crate::server::runs::context::InputError;
use crate::server::state::AppState;
use crate::server::stream::sse_response;

use super::body::{content_length, read_json};

/// The agent a request runs when it names none.
pub const DEFAULT_AGENT: &str = "demo";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/agent/chat/stream", post(stream))
        .route("/agent/agent/stream", post(stream))
}

/// The seed's request body.
#[derive(Debug, Clone, Deserialize)]
pub struct StreamRequest {
    pub messages: Vec<StreamMessage>,
    pub thread_id: Option<String>,
    pub agent_id: Option<String>,
    pub model_id: Option<String>,
    pub enable_deep_thinking: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StreamMessage {
    pub role: StreamRole,
    pub content: StreamContent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamRole {
    User,
    Assistant,
    System,
}

/// `string | ContentBlock[]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum StreamContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

#[derive(Debug, Clone, Deserialize)]
pub struct ContentBlock {
    #[serde(rename = "type")]
    pub kind: BlockKind,
    pub text: Option<String>,
    pub url: Option<String>,
    /// Base64.
    pub data: Option<String>,
    #[serde(alias = "mimeType")]
    pub mime_type: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockKind {
    Text,
    Image,
    Audio,
    File,
}

/// The 1.1 run input for a request: `threadId` is `thread_id` (else `thread-<uuid>`), messages
/// get ids `msg-<n>`, content blocks become content parts, and `model_id` /
/// `enable_deep_thinking` ride along as `forwardedProps.modelId` / `.enableDeepThinking`.
/// Err: why the request is not acceptable.
pub fn to_run_input(req: StreamRequest, run_id: String) -> Result<RunAgentInput, InputError> {
    if req.messages.is_empty() {
        return Err(InputError(
            "`messages` must contain at least one message".into(),
        ));
    }
    let thread_id = req
        .thread_id
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| format!("thread-{}", uuid::Uuid::new_v4()));
    let mut input = RunAgentInput::new(thread_id, run_id);
    for (i, m) in req.messages.into_iter().enumerate() {
        let id = format!("msg-{}", i + 1);
        let at = format!("messages[{i}]");
        input.messages.push(match m.role {
            StreamRole::User => Message::User(UserMessage {
                id,
                content: user_content(m.content, &at)?,
                name: None,
                encrypted_value: None,
                encrypted_value_type: None,
                metadata: None,
                subagent_run_id: None,
            }),
            StreamRole::Assistant => Message::Assistant(AssistantMessage {
                id,
                content: Some(plain_text(m.content, &at)?),
                ..Default::default()
            }),
            StreamRole::System => Message::System(TextMessage {
                id,
                content: plain_text(m.content, &at)?,
                ..Default::default()
            }),
        });
    }
    let mut props = Map::new();
    if let Some(model) = req.model_id {
        props.insert("modelId".into(), model.into());
    }
    if let Some(deep) = req.enable_deep_thinking {
        props.insert("enableDeepThinking".into(), deep.into());
    }
    input.forwarded_props = Value::Object(props);
    Ok(input)
}

fn user_content(content: StreamContent, at: &str) -> Result<Content, InputError> {
    let blocks = match content {
        StreamContent::Text(s) => return Ok(Content::Text(s)),
        StreamContent::Blocks(b) => b,
    };
    let parts = blocks
        .into_iter()
        .enumerate()
        .map(|(j, b)| part(b, &format!("{at}.content[{j}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Content::Parts(parts))
}

/// One content block as a 1.1 part: inline `data` wins over `url`; `file` is a document.
fn part(block: ContentBlock, at: &str) -> Result<ContentPart, InputError> {
    if block.kind == BlockKind::Text {
        let text = block
            .text
            .ok_or_else(|| InputError(format!("{at}: a text block needs `text`")))?;
        return Ok(ContentPart::Text(TextPart {
            text,
            id: None,
            metadata: None,
        }));
    }
    let source = match (block.data, block.url) {
        (Some(value), _) => PartSource::Data {
            value,
            mime_type: block
                .mime_type
                .unwrap_or_else(|| "application/octet-stream".into()),
        },
        (None, Some(value)) => PartSource::Url {
            value,
            mime_type: block.mime_type,
        },
        (None, None) => {
            return Err(InputError(format!(
                "{at}: a media block needs `url` or `data`"
            )))
        }
    };
    let media = MediaPart {
        source,
        id: None,
        metadata: None,
    };
    Ok(match block.kind {
        BlockKind::Image => ContentPart::Image(media),
        BlockKind::Audio => ContentPart::Audio(media),
        _ => ContentPart::Document(media),
    })
}

/// System and assistant messages are text only in 1.1: text blocks joined by newlines.
fn plain_text(content: StreamContent, at: &str) -> Result<String, InputError> {
    match content {
        StreamContent::Text(s) => Ok(s),
        StreamContent::Blocks(blocks) => blocks
            .into_iter()
            .map(|b| match (b.kind, b.text) {
                (BlockKind::Text, Some(t)) => Ok(t),
                (BlockKind::Text, None) => {
                    Err(InputError(format!("{at}: a text block needs `text`")))
                }
                _ => Err(InputError(format!(
                    "{at}: only user messages may carry image, audio or file blocks"
                ))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|v| v.join("\n")),
    }
}

fn bad_request(code: &str, message: String) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(json!({ "error": { "code": code, "message": message } })),
    )
        .into_response()
}

async fn stream(
    State(state): State<AppState>,
    Extension(user): Extension<User>,
    req: Request,
) -> Response {
    let declared = content_length(&req);
    let value = match read_json(&state, req.into_body(), declared).await {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    let request: StreamRequest = match serde_json::from_value(value) {
        Ok(r) => r,
        Err(e) => return bad_request("invalid_request", format!("not a valid StreamRequest: {e}")),
    };
    let agent_id = request
        .agent_id
        .clone()
        .filter(|a| !a.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_AGENT.into());
    let Some(agent) = state.agents.get(&agent_id) else {
        let served: Vec<String> = state.agents.all().map(|a| a.info().id).collect();
        return bad_request(
            "unknown_agent",
            format!(
                "no agent '{agent_id}' is served here (served: {})",
                served.join(", ")
            ),
        );
    };
    let input = match to_run_input(request, format!("run-{}", uuid::Uuid::new_v4())) {
        Ok(i) => i,
        Err(e) => return bad_request("invalid_request", e.to_string()),
    };
    let mut encoder = Encoder::new(input.thread_id.clone());
    match state
        .runs
        .start_for(agent, input, state.config.run_settings(), user)
        .await
    {
        Ok(run) => sse_response(
            run.events,
            Some(run.cancel),
            state.config.keep_alive,
            move |f| encoder.frames(f.event()),
        ),
        Err(e) => e.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: Value) -> Result<RunAgentInput, String> {
        let req: StreamRequest = serde_json::from_value(v).map_err(|e| e.to_string())?;
        to_run_input(req, "run-1".into()).map_err(|e| e.to_string())
    }

    #[test]
    fn request_becomes_run_input() {
        let input = parse(json!({
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image", "data": "iVBORw0KGgo=", "mime_type": "image/png"},
                    {"type": "image", "url": "https://example.com/a.jpg"},
                    {"type": "audio", "data": "AAAA"},
                    {"type": "file", "url": "https://example.com/a.pdf", "mime_type": "application/pdf"}
                ]},
                {"role": "assistant", "content": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]}
            ],
            "thread_id": "thread_1",
            "model_id": "gpt-x",
            "enable_deep_thinking": true
        }))
        .unwrap();
        let v = serde_json::to_value(&input).unwrap();
        assert_eq!(v["threadId"], "thread_1");
        assert_eq!(v["runId"], "run-1");
        assert_eq!(
            v["forwardedProps"],
            json!({"modelId": "gpt-x", "enableDeepThinking": true})
        );
        assert_eq!(
            v["messages"][0],
            json!({"role": "system", "id": "msg-1", "content": "Be brief."})
        );
        assert_eq!(
            v["messages"][1]["content"],
            json!([
                {"type": "text", "text": "What is this?"},
                {"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}},
                {"type": "image", "source": {"type": "url", "value": "https://example.com/a.jpg"}},
                {"type": "audio", "source": {"type": "data", "value": "AAAA", "mimeType": "application/octet-stream"}},
                {"type": "document", "source": {"type": "url", "value": "https://example.com/a.pdf", "mimeType": "application/pdf"}}
            ])
        );
        assert_eq!(v["messages"][2]["content"], "A\nB");
        assert_eq!(v["messages"][2]["id"], "msg-3");
    }

    #[test]
    fn defaults_and_rejections() {
        let input = parse(json!({"messages": [{"role": "user", "content": "hi"}]})).unwrap();
        assert!(input.thread_id.starts_with("thread-") && input.thread_id.len() > 20);
        assert_eq!(input.forwarded_props, json!({}));
        for bad in [
            json!({}),
            json!({"messages": []}),
            json!({"messages": [{"role": "tool", "content": "x"}]}),
            json!({"messages": [{"role": "user"}]}),
            json!({"messages": [{"role": "user", "content": [{"type": "video", "url": "u"}]}]}),
            json!({"messages": [{"role": "user", "content": [{"type": "image"}]}]}),
            json!({"messages": [{"role": "user", "content": [{"type": "text"}]}]}),
            json!({"messages": [{"role": "system", "content": [{"type": "image", "url": "u"}]}]}),
        ] {
            assert!(parse(bad.clone()).is_err(), "{bad}");
        }
    }
}

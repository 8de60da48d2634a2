//! From an MCP `tools/call` result to what the model reads (text) and what the AG-UI
//! `TOOL_CALL_RESULT` carries (text, plus inline images as 1.1 content parts).
//!
//! The result is read as JSON (`{content: [...], structuredContent?, isError?}`), so content
//! types this SDK version does not know are summarised rather than lost. Everything is bounded by
//! one byte budget: text past it is cut with a note saying so, and an image that does not fit is
//! described instead of attached.

use serde_json::Value;

use crate::protocol::types::{Content, ContentPart, MediaPart, PartSource, TextPart};

/// The longest media type taken from a server (RFC 6838 allows 127 characters a side).
const MAX_MIME: usize = 255;

/// One tool call's answer, as the run uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// What goes back to the model as the `tool` message.
    pub text: String,
    /// What `TOOL_CALL_RESULT.content` carries.
    pub content: Content,
    /// The server's `CallToolResult` as JSON, when it fits the result cap (for an MCP App).
    pub raw: Option<Value>,
    /// The size of the server's answer (JSON bytes; 0 when it did not answer).
    pub bytes: usize,
}

impl Outcome {
    /// A failure the model reads (and may recover from); the run goes on.
    pub fn error(message: impl Into<String>) -> Self {
        let text = format!("Error: {}", message.into());
        Outcome {
            content: Content::Text(text.clone()),
            text,
            raw: None,
            bytes: 0,
        }
    }
}

/// Map a `CallToolResult` (as JSON) within `max_bytes` of text and inline media.
pub fn outcome(result: &Value, max_bytes: usize) -> Outcome {
    let mut text = String::new();
    let mut images: Vec<ContentPart> = Vec::new();
    let mut media_bytes = 0usize;
    let push = |text: &mut String, s: &str| {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(s);
    };
    let parts = result.get("content").and_then(Value::as_array);
    for part in parts.into_iter().flatten() {
        let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
        let s = |k: &str| part.get(k).and_then(Value::as_str);
        match kind {
            "text" => push(&mut text, s("text").unwrap_or("")),
            "image" | "audio" => {
                // A media type is short: anything else from the server is not one.
                let mime = s("mimeType")
                    .filter(|m| m.len() <= MAX_MIME && m.bytes().all(|b| b.is_ascii_graphic()))
                    .unwrap_or("application/octet-stream");
                let data = s("data").unwrap_or("");
                let bytes = decoded_len(data);
                // Inline images are attached while they fit the budget; audio, which no
                // renderer here plays from a tool result, is described.
                if kind == "image" && media_bytes + data.len() + text.len() <= max_bytes {
                    media_bytes += data.len();
                    images.push(ContentPart::Image(MediaPart {
                        source: PartSource::Data {
                            value: data.to_string(),
                            mime_type: mime.to_string(),
                        },
                        id: None,
                        metadata: None,
                    }));
                    push(
                        &mut text,
                        &format!("[{kind}: {mime}, {bytes} bytes, attached]"),
                    );
                } else {
                    push(&mut text, &format!("[{kind}: {mime}, {bytes} bytes]"));
                }
            }
            "resource_link" => push(
                &mut text,
                &format!(
                    "[resource link: {}{}]",
                    s("uri").unwrap_or("?"),
                    s("name").map(|n| format!(" ({n})")).unwrap_or_default()
                ),
            ),
            "resource" => {
                let r = part.get("resource").unwrap_or(&Value::Null);
                let uri = r.get("uri").and_then(Value::as_str).unwrap_or("?");
                match (
                    r.get("text").and_then(Value::as_str),
                    r.get("blob").and_then(Value::as_str),
                ) {
                    (Some(t), _) => push(&mut text, &format!("[resource {uri}]\n{t}")),
                    (None, Some(b)) => {
                        let mime = r
                            .get("mimeType")
                            .and_then(Value::as_str)
                            .unwrap_or("binary");
                        push(
                            &mut text,
                            &format!("[resource {uri}: {mime}, {} bytes]", decoded_len(b)),
                        );
                    }
                    (None, None) => push(&mut text, &format!("[resource {uri}]")),
                }
            }
            other => push(
                &mut text,
                &format!("[content of type '{}']", cut(other, 40)),
            ),
        }
        // Stop reading once the budget is spent: the rest would be cut anyway.
        if text.len() > max_bytes {
            break;
        }
    }
    if text.is_empty() {
        if let Some(sc) = result.get("structuredContent").filter(|v| !v.is_null()) {
            text = sc.to_string();
        }
    }
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    if is_error {
        text = if text.is_empty() {
            "Error: the tool reported an error".into()
        } else {
            format!("Error: {text}")
        };
    }
    let budget = max_bytes.saturating_sub(media_bytes);
    if text.len() > budget {
        let total = text.len();
        let mut at = budget;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
        text.push_str(&format!(
            "\n[truncated: the tool's result was {total} bytes; the first {at} are shown]"
        ));
    }
    let content = if images.is_empty() {
        Content::Text(text.clone())
    } else {
        let mut parts = vec![ContentPart::Text(TextPart {
            text: text.clone(),
            id: None,
            metadata: None,
        })];
        parts.extend(images);
        Content::Parts(parts)
    };
    Outcome {
        text,
        content,
        raw: None,
        bytes: 0,
    }
}

/// The size of the bytes base64 text `b64` carries (four characters carry three bytes).
fn decoded_len(b64: &str) -> usize {
    b64.trim_end_matches('=').len() * 3 / 4
}

/// `s` cut to `max` characters (with an ellipsis when cut).
pub fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_and_errors() {
        let o = outcome(
            &json!({"content": [{"type": "text", "text": "Echo: hi"}]}),
            1000,
        );
        assert_eq!(o.text, "Echo: hi");
        assert_eq!(o.content, Content::Text("Echo: hi".into()));
        let o = outcome(
            &json!({"content": [{"type": "text", "text": "bad input"}], "isError": true}),
            1000,
        );
        assert_eq!(o.text, "Error: bad input");
        let o = outcome(
            &json!({"content": [], "structuredContent": {"sum": 5}}),
            1000,
        );
        assert_eq!(o.text, r#"{"sum":5}"#);
        assert_eq!(
            outcome(&json!({"isError": true}), 1000).text,
            "Error: the tool reported an error"
        );
    }

    #[test]
    fn media_and_resources() {
        let o = outcome(
            &json!({"content": [
                {"type": "text", "text": "a picture:"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///x", "name": "x"},
                {"type": "resource", "resource": {"uri": "test://1", "text": "body"}},
                {"type": "resource", "resource": {"uri": "test://2", "blob": "AAAA", "mimeType": "application/gzip"}},
                {"type": "hologram"}
            ]}),
            10_000,
        );
        assert!(
            o.text.contains("[image: image/png, 8 bytes, attached]"),
            "{}",
            o.text
        );
        assert!(o.text.contains("[audio: audio/wav, 3 bytes]"));
        assert!(o.text.contains("[resource link: file:///x (x)]"));
        assert!(o.text.contains("[resource test://1]\nbody"));
        assert!(o
            .text
            .contains("[resource test://2: application/gzip, 3 bytes]"));
        assert!(o.text.contains("[content of type 'hologram']"));
        let Content::Parts(parts) = &o.content else {
            panic!("{:?}", o.content)
        };
        assert_eq!(parts.len(), 2);
        assert!(matches!(&parts[1], ContentPart::Image(_)));
    }

    #[test]
    fn a_media_type_that_is_no_media_type_is_not_taken() {
        let huge = "image/".to_string() + &"x".repeat(100_000);
        let o = outcome(
            &json!({"content": [{"type": "image", "data": "AAAA", "mimeType": huge}]}),
            1_000_000,
        );
        assert!(o
            .text
            .contains("[image: application/octet-stream, 3 bytes, attached]"));
        let Content::Parts(parts) = &o.content else {
            panic!("{:?}", o.content)
        };
        let ContentPart::Image(MediaPart {
            source: PartSource::Data { mime_type, .. },
            ..
        }) = &parts[1]
        else {
            panic!("{parts:?}")
        };
        assert_eq!(mime_type, "application/octet-stream");
        assert!(o.text.len() < 200);
    }

    #[test]
    fn the_budget_cuts_text_and_drops_images() {
        let long = "é".repeat(1000);
        let o = outcome(&json!({"content": [{"type": "text", "text": long}]}), 101);
        assert!(o.text.starts_with(&"é".repeat(50)));
        assert!(
            o.text
                .contains("[truncated: the tool's result was 2000 bytes; the first 100 are shown]"),
            "{}",
            o.text
        );
        let big = "A".repeat(4000);
        let o = outcome(
            &json!({"content": [{"type": "image", "data": big, "mimeType": "image/png"}]}),
            1000,
        );
        assert_eq!(o.text, "[image: image/png, 3000 bytes]");
        assert!(matches!(o.content, Content::Text(_)));
        // Thousands of parts stop being read once the budget is spent.
        let many: Vec<Value> = (0..100_000)
            .map(|_| json!({"type": "text", "text": "xxxxxxxxxx"}))
            .collect();
        let o = outcome(&json!({"content": many}), 1000);
        assert!(o.text.len() < 1200);
    }
}

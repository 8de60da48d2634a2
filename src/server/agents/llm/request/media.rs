//! User content as chat content: text, images, other media described in words, and the URL scheme check.

use crate::server::runs::context::InputError;
use reqwest::Url;
use serde_json::{json, Value};

use crate::protocol::types::{Content, ContentPart, Message, PartSource, RunAgentInput};

/// Refuse input with a media URL whose scheme is not in `schemes`, naming the message, the
/// part and the scheme (what the request handler answers 422 with).
pub fn check_media(input: &RunAgentInput, schemes: &[String]) -> Result<(), InputError> {
    for m in &input.messages {
        let Message::User(u) = m else { continue };
        let Content::Parts(parts) = &u.content else {
            continue;
        };
        for (i, p) in parts.iter().enumerate() {
            media_url(p, &u.id, i, schemes)?;
        }
    }
    Ok(())
}

/// The URL a media part is forwarded under (None: the part carries no URL), or why it is not.
fn media_url(
    part: &ContentPart,
    message_id: &str,
    index: usize,
    schemes: &[String],
) -> Result<Option<String>, InputError> {
    let (kind, source) = match part {
        ContentPart::Text(_) => return Ok(None),
        ContentPart::Image(m) => ("image", &m.source),
        ContentPart::Audio(m) => ("audio", &m.source),
        ContentPart::Video(m) => ("video", &m.source),
        ContentPart::Document(m) => ("document", &m.source),
    };
    // Ids are the client's: long ones are cut so the error stays a message.
    let message_id = super::super::shorten(message_id, 80);
    let refuse = |scheme: &str| {
        let scheme = super::super::shorten(scheme, 32);
        format!(
            "message '{message_id}', part {index} ({kind}): URLs with the scheme '{scheme}' are not sent to the model (allowed: {}; see --llm-image-schemes)",
            if schemes.is_empty() { "none".to_string() } else { schemes.join(", ") }
        )
    };
    match source {
        // Inline images go out as `data:` URLs, so they follow the same list.
        PartSource::Data { .. } if kind == "image" => {
            if schemes.iter().any(|s| s == "data") {
                Ok(None)
            } else {
                Err(InputError(refuse("data")))
            }
        }
        PartSource::Data { .. } | PartSource::File { .. } => Ok(None),
        PartSource::Url { value, .. } => {
            let url = Url::parse(value).map_err(|e| {
                InputError(format!(
                    "message '{message_id}', part {index} ({kind}): the URL is not valid ({e})"
                ))
            })?;
            if schemes.iter().any(|s| s == url.scheme()) {
                // Forwarded as parsed: what we checked is what the model server reads, even
                // where its parser would treat blanks or backslashes differently.
                Ok(Some(url.into()))
            } else {
                Err(InputError(refuse(url.scheme())))
            }
        }
    }
}

/// A user message's content: a plain string when it is only text (every server takes that),
/// else content parts, with images as `image_url` and other media described in words.
pub(super) fn user_content(
    content: &Content,
    message_id: &str,
    schemes: &[String],
) -> Result<Value, InputError> {
    let parts = match content {
        Content::Text(t) => return Ok(json!(t)),
        Content::Parts(p) => p,
    };
    if parts.iter().all(|p| matches!(p, ContentPart::Text(_))) {
        return Ok(json!(content.text()));
    }
    let mut out = Vec::with_capacity(parts.len());
    for (i, p) in parts.iter().enumerate() {
        let url = media_url(p, message_id, i, schemes)?;
        out.push(match p {
            ContentPart::Text(t) => json!({"type": "text", "text": t.text}),
            ContentPart::Image(m) => match (&m.source, url) {
                (PartSource::Data { value, mime_type }, _) => {
                    json!({"type": "image_url", "image_url": {"url": format!("data:{mime_type};base64,{value}")}})
                }
                (PartSource::Url { .. }, Some(url)) => {
                    json!({"type": "image_url", "image_url": {"url": url}})
                }
                _ => describe("image", &m.source),
            },
            ContentPart::Audio(m) => describe("audio", &m.source),
            ContentPart::Video(m) => describe("video", &m.source),
            ContentPart::Document(m) => describe("document", &m.source),
        });
    }
    Ok(Value::Array(out))
}

/// A text part standing in for media the Chat Completions API has no portable part for.
fn describe(kind: &str, source: &PartSource) -> Value {
    let what = match source {
        PartSource::Data { value, mime_type } => {
            // Base64: four characters carry three bytes.
            let bytes = value.trim_end_matches('=').len() * 3 / 4;
            format!("{mime_type}, {} inline", size(bytes))
        }
        PartSource::Url { value, mime_type } => match mime_type {
            Some(m) => format!("{m} at {value}"),
            None => format!("at {value}"),
        },
        PartSource::File {
            value,
            provider,
            mime_type,
        } => {
            let mut s = format!("file {value}");
            if let Some(p) = provider {
                s.push_str(&format!(" of {p}"));
            }
            if let Some(m) = mime_type {
                s.push_str(&format!(", {m}"));
            }
            s
        }
    };
    json!({"type": "text", "text": format!(
        "[The user attached {} {kind} ({what}); it is not included because this chat API accepts only text and images.]",
        if kind == "image" || kind == "audio" { "an" } else { "a" }
    )})
}

fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

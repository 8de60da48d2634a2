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
use reqwest::Url;
use serde_json::{json, Map, Value};

use crate::protocol::types::{
    Content, ContentPart, Context, Message, PartSource, RunAgentInput, Tool,
};

/// What a tool call that never got an answer says to the model.
const UNANSWERED: &str = "(no result: this tool call was not answered)";

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
    let message_id = super::shorten(message_id, 80);
    let refuse = |scheme: &str| {
        let scheme = super::shorten(scheme, 32);
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

/// A user message's content: a plain string when it is only text (every server takes that),
/// else content parts, with images as `image_url` and other media described in words.
fn user_content(
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
mod tests {
    use super::*;

    fn default_schemes() -> Vec<String> {
        crate::server::agents::DEFAULT_LLM_IMAGE_SCHEMES
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn input(messages: Value) -> RunAgentInput {
        serde_json::from_value(json!({"threadId": "t", "runId": "r", "messages": messages}))
            .unwrap()
    }

    #[test]
    fn every_role_maps() {
        let mut i = input(json!([
            {"id": "1", "role": "system", "content": "Be brief."},
            {"id": "2", "role": "developer", "content": "Use metric units."},
            {"id": "3", "role": "user", "content": "hi", "name": "ann"},
            {"id": "4", "role": "reasoning", "content": "thinking"},
            {"id": "5", "role": "assistant", "content": "Let me check.", "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "calculate", "arguments": "{\"expression\":\"1+1\"}"}}]},
            {"id": "6", "role": "tool", "toolCallId": "c1", "content": "{\"result\":2}"},
            {"id": "7", "role": "activity", "activityType": "PLAN", "content": {}},
            {"id": "8", "role": "assistant", "content": "It is 2."},
            {"id": "9", "role": "assistant", "content": ""}
        ]));
        i.context = vec![Context {
            description: "city".into(),
            value: "Oslo".into(),
        }];
        assert_eq!(
            Value::Array(messages(&i, &default_schemes()).unwrap()),
            json!([
                {"role": "system", "content": "Be brief."},
                {"role": "system", "content": "Use metric units."},
                {"role": "system", "content": "Context provided by the application:\n- city: Oslo"},
                {"role": "user", "content": "hi", "name": "ann"},
                {"role": "assistant", "content": "Let me check.", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "calculate", "arguments": "{\"expression\":\"1+1\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "{\"result\":2}"},
                {"role": "assistant", "content": "It is 2."}
            ])
        );
    }

    #[test]
    fn tool_results_follow_their_calls_and_gaps_are_filled() {
        let i = input(json!([
            {"id": "1", "role": "user", "content": "go"},
            {"id": "2", "role": "assistant", "toolCalls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": ""}},
                {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
            {"id": "3", "role": "assistant", "content": "waiting"},
            {"id": "4", "role": "tool", "toolCallId": "b", "content": "ok", "error": "partly"},
            {"id": "5", "role": "tool", "toolCallId": "zz", "content": "stray"}
        ]));
        assert_eq!(
            Value::Array(messages(&i, &default_schemes()).unwrap()),
            json!([
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                    {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "a", "content": UNANSWERED},
                {"role": "tool", "tool_call_id": "b", "content": "Error: partly\nok"},
                {"role": "assistant", "content": "waiting"},
                {"role": "user", "content": "[result of tool call zz]\nstray"}
            ])
        );
    }

    #[test]
    fn content_parts() {
        let i = input(json!([
            {"id": "1", "role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"id": "2", "role": "user", "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}},
                {"type": "image", "source": {"type": "url", "value": "https://x/cat.jpg"}},
                {"type": "audio", "source": {"type": "data", "value": "AAAAAAAA", "mimeType": "audio/wav"}},
                {"type": "document", "source": {"type": "url", "value": "https://x/d.pdf", "mimeType": "application/pdf"}},
                {"type": "video", "source": {"type": "file", "value": "file-1", "provider": "openai"}}
            ]}
        ]));
        let m = messages(&i, &default_schemes()).unwrap();
        assert_eq!(m[0]["content"], "a\nb");
        let parts = m[1]["content"].as_array().unwrap();
        assert_eq!(parts[0], json!({"type": "text", "text": "What is this?"}));
        assert_eq!(
            parts[1],
            json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}})
        );
        assert_eq!(
            parts[2],
            json!({"type": "image_url", "image_url": {"url": "https://x/cat.jpg"}})
        );
        let text = |i: usize| parts[i]["text"].as_str().unwrap().to_string();
        assert!(
            text(3).contains("an audio (audio/wav, 6 B inline)"),
            "{}",
            text(3)
        );
        assert!(text(4).contains("a document (application/pdf at https://x/d.pdf)"));
        assert!(text(5).contains("a video (file file-1 of openai)"));
    }

    #[test]
    fn frontend_tools_get_an_object_schema() {
        let t: Tool =
            serde_json::from_value(json!({"name": "confirm", "description": ""})).unwrap();
        assert_eq!(
            frontend_tool(&t),
            json!({"type": "function", "function": {"name": "confirm", "parameters": {"type": "object", "properties": {}}}})
        );
        let t: Tool = serde_json::from_value(json!({"name": "pick", "description": "Pick",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}))
        .unwrap();
        assert_eq!(
            frontend_tool(&t)["function"]["parameters"]["properties"]["n"]["type"],
            "integer"
        );
    }

    fn image(url: &str) -> RunAgentInput {
        input(json!([{"id": "u1", "role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "url", "value": url}}
        ]}]))
    }

    #[test]
    fn media_urls_outside_the_allowed_schemes_are_refused() {
        let ok = default_schemes();
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "file:///etc/passwd",
            "ftp://x/y.png",
            "gopher://x/",
            "not a url",
        ] {
            let i = image(url);
            let e = check_media(&i, &ok).unwrap_err();
            assert!(e.0.contains("message 'u1', part 1 (image)"), "{e}");
            assert_eq!(messages(&i, &ok).unwrap_err(), e);
        }
        let e = check_media(&image("HTTP://169.254.169.254/"), &ok).unwrap_err();
        assert!(
            e.0.contains("scheme 'http'") && e.0.contains("allowed: data, https"),
            "{e}"
        );
        for url in ["https://x/cat.jpg", "data:image/png;base64,iVBORw0KGgo="] {
            check_media(&image(url), &ok).unwrap();
            let m = messages(&image(url), &ok).unwrap();
            assert_eq!(m[0]["content"][1]["image_url"]["url"], url);
        }
        // Other media: the URL would reach the model as text, so the same rule holds.
        let doc = input(json!([{"id": "u2", "role": "user", "content": [
            {"type": "document", "source": {"type": "url", "value": "file:///etc/shadow"}}
        ]}]));
        assert!(check_media(&doc, &ok)
            .unwrap_err()
            .0
            .contains("part 0 (document)"));
        // Without `data`, inline images are refused too; with `http` listed, http passes.
        let inline = input(json!([{"id": "u3", "role": "user", "content": [
            {"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}}
        ]}]));
        let only_https = vec!["https".to_string()];
        assert!(check_media(&inline, &only_https)
            .unwrap_err()
            .0
            .contains("'data'"));
        let with_http = vec!["https".to_string(), "http".to_string()];
        check_media(&image("http://intranet/x.png"), &with_http).unwrap();
    }

    #[test]
    fn the_checked_url_is_the_one_forwarded() {
        // A WHATWG parser drops the tab; what we checked and what the model reads agree.
        let m = messages(&image("https://x/\tcat.jpg"), &default_schemes()).unwrap();
        assert_eq!(m[0]["content"][1]["image_url"]["url"], "https://x/cat.jpg");
    }
}

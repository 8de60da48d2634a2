//! Compatibility with older peers: how a client prepares the `RunAgentInput` it sends, and which
//! protocol era a peer speaks.
//!
//! Always on: legacy `{type:"binary"}` content parts are upgraded to 1.1 media parts, activity
//! messages (client-only) are removed, and `tools`, `context`, `state` and `forwardedProps` are
//! always present because pre-1.0 servers require them. For a peer pinned to an older version
//! (`maxProtocolVersion`), `protocolVersion` is omitted below 1.0 and multimodal user content is
//! flattened to text below 0.0.40, with a warning for what that drops.

use serde_json::{json, Map, Value};

use super::event::{Event, EventKind};
use super::types::{Content, Message, RunOutcome, PROTOCOL_VERSION};

/// A protocol version as `(major, minor, patch)`; "1.1" is `(1, 1, 0)`.
pub type Version = (u32, u32, u32);

/// Parse "MAJOR.MINOR" or "MAJOR.MINOR.PATCH".
pub fn parse_version(v: &str) -> Option<Version> {
    let parts: Vec<&str> = v.trim().split('.').collect();
    let num = |s: &str| s.parse::<u32>().ok();
    match parts.as_slice() {
        [a, b] => Some((num(a)?, num(b)?, 0)),
        [a, b, c] => Some((num(a)?, num(b)?, num(c)?)),
        _ => None,
    }
}

/// The first version with subagents and `protocolVersion` negotiation.
pub const V1_0: Version = (1, 0, 0);
/// The first version with multimodal content parts.
const V0_0_40: Version = (0, 0, 40);

/// The first version with `encryptedValueType`.
pub const V1_1: Version = (1, 1, 0);

/// Rewrite an event we produce for a peer that declared an older protocol version in its
/// `RunAgentInput`, so it receives only what its version defines (a party that knows its peer
/// is older MAY translate for it). `None` drops the event. Current peers get events unchanged.
pub fn downgrade_event(mut event: Event, peer: Version) -> Option<Event> {
    if peer >= V1_1 {
        return Some(event);
    }
    let pre_1_0 = peer < V1_0;
    if pre_1_0 {
        event.subagent_run_id = None;
    }
    match &mut event.kind {
        EventKind::RunStarted {
            protocol_version, ..
        } => {
            *protocol_version = (!pre_1_0).then(|| "1.0".to_string());
        }
        EventKind::ReasoningEncryptedValue {
            encrypted_value_type,
            ..
        } => *encrypted_value_type = None,
        EventKind::MessagesSnapshot { messages } => {
            for m in messages.iter_mut() {
                downgrade_message(m, pre_1_0);
            }
        }
        EventKind::SubagentStarted { .. }
        | EventKind::SubagentFinished { .. }
        | EventKind::SubagentError { .. }
            if pre_1_0 =>
        {
            return None
        }
        EventKind::RunFinished { outcome, .. } if pre_1_0 => {
            // 0.0.x knows success and interrupt only, and success without pending ids.
            if matches!(
                outcome,
                Some(RunOutcome::Cancelled) | Some(RunOutcome::Success { .. })
            ) {
                *outcome = None;
            }
        }
        EventKind::ToolCallResult { content, .. } if pre_1_0 => {
            if let Content::Parts(_) = content {
                *content = Content::Text(content.text());
            }
        }
        _ => {}
    }
    Some(event)
}

/// The wire JSON of `event` (already [`downgrade_event`]ed) for a peer of version `peer`: a
/// pre-1.0 peer knows only `text` and `binary` user content parts (0.0.48's schema rejects the
/// rest), so a user message's 1.x media parts go to it as `binary` parts.
pub fn event_json_for(event: &Event, peer: Version) -> String {
    if peer >= V1_0 || !matches!(event.kind, EventKind::MessagesSnapshot { .. }) {
        return event.to_json();
    }
    let mut v = event.to_value();
    let messages = v.get_mut("messages").and_then(Value::as_array_mut);
    for m in messages.into_iter().flatten() {
        if m.get("role").and_then(Value::as_str) != Some("user") {
            continue;
        }
        if let Some(Value::Array(parts)) = m.get_mut("content") {
            parts.iter_mut().for_each(binary_part);
        }
    }
    v.to_string()
}

/// A 1.x media part (`image`/`audio`/`video`/`document` with a `source`) as the pre-1.0
/// `{type:"binary", mimeType, data|url|id, filename?}`; any other part stays.
fn binary_part(part: &mut Value) {
    let media = ["image", "audio", "video", "document"];
    if !part
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| media.contains(&t))
    {
        return;
    }
    let Some(source) = part.get("source").and_then(Value::as_object) else {
        return;
    };
    let field = match source.get("type").and_then(Value::as_str) {
        Some("data") => "data",
        Some("url") => "url",
        Some("file") => "id",
        _ => return,
    };
    let mime = source
        .get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or("application/octet-stream");
    let mut binary = json!({"type": "binary", "mimeType": mime});
    binary[field] = source.get("value").cloned().unwrap_or(Value::Null);
    if let Some(name) = part.pointer("/metadata/filename").and_then(Value::as_str) {
        binary["filename"] = json!(name);
    }
    *part = binary;
}

fn downgrade_message(m: &mut Message, pre_1_0: bool) {
    match m {
        Message::Developer(x) | Message::System(x) => x.encrypted_value_type = None,
        Message::Assistant(x) => {
            x.encrypted_value_type = None;
            for c in x.tool_calls.iter_mut().flatten() {
                c.encrypted_value_type = None;
            }
        }
        Message::User(x) => x.encrypted_value_type = None,
        Message::Tool(x) => {
            x.encrypted_value_type = None;
            if pre_1_0 {
                if let Content::Parts(_) = &x.content {
                    x.content = Content::Text(x.content.text());
                }
            }
        }
        Message::Reasoning(x) => x.encrypted_value_type = None,
        Message::Activity(_) => {}
    }
    if pre_1_0 {
        *m.subagent_run_id_mut() = None;
    }
}

/// Prepare a `RunAgentInput` (as JSON) for sending to a peer that speaks at most `max_version`
/// (None: a current 1.1 peer). Returns the body to send and warnings.
pub fn prepare_request(mut input: Value, max_version: Option<Version>) -> (Value, Vec<String>) {
    let mut warnings = Vec::new();
    let Some(obj) = input.as_object_mut() else {
        return (input, warnings);
    };
    let era = max_version.unwrap_or((u32::MAX, 0, 0));
    if era < V1_0 {
        obj.remove("protocolVersion");
    } else {
        obj.insert("protocolVersion".into(), json!(PROTOCOL_VERSION));
    }
    for key in ["tools", "context"] {
        if !matches!(obj.get(key), Some(Value::Array(_))) {
            obj.insert(key.into(), json!([]));
        }
    }
    for key in ["state", "forwardedProps"] {
        if obj.get(key).is_none_or(Value::is_null) {
            obj.insert(key.into(), json!({}));
        }
    }
    if let Some(Value::Array(messages)) = obj.get_mut("messages") {
        messages.retain(|m| m.get("role").and_then(Value::as_str) != Some("activity"));
        for m in messages.iter_mut() {
            let id = m
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string();
            let Some(Value::Array(parts)) = m.get_mut("content") else {
                continue;
            };
            for p in parts.iter_mut() {
                upgrade_binary_part(p);
            }
            if era < V0_0_40 && m.get("role").and_then(Value::as_str) == Some("user") {
                flatten_content(m, &id, &mut warnings);
            }
        }
    }
    (input, warnings)
}

/// `{type:"binary", mimeType, url|data|id, filename?}` (deprecated in 0.0.47, removed in 1.0)
/// becomes the typed media part its MIME type names.
fn upgrade_binary_part(part: &mut Value) {
    let Some(p) = part.as_object() else { return };
    if p.get("type").and_then(Value::as_str) != Some("binary") {
        return;
    }
    let mime = p
        .get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or("application/octet-stream");
    let kind = match mime.split('/').next() {
        Some("image") => "image",
        Some("audio") => "audio",
        Some("video") => "video",
        _ => "document",
    };
    let str_of = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
    let source = if let Some(url) = str_of("url") {
        json!({"type": "url", "value": url, "mimeType": mime})
    } else if let Some(data) = str_of("data") {
        json!({"type": "data", "value": data, "mimeType": mime})
    } else if let Some(id) = str_of("id") {
        json!({"type": "file", "value": id, "mimeType": mime})
    } else {
        return;
    };
    let mut upgraded = Map::new();
    upgraded.insert("type".into(), json!(kind));
    upgraded.insert("source".into(), source);
    if let Some(name) = str_of("filename") {
        upgraded.insert("metadata".into(), json!({ "filename": name }));
    }
    *part = Value::Object(upgraded);
}

fn flatten_content(message: &mut Value, id: &str, warnings: &mut Vec<String>) {
    let Some(Value::Array(parts)) = message.get("content") else {
        return;
    };
    let mut texts = Vec::new();
    let mut dropped = 0;
    for p in parts {
        match (
            p.get("type").and_then(Value::as_str),
            p.get("text").and_then(Value::as_str),
        ) {
            (Some("text"), Some(t)) => texts.push(t.to_string()),
            _ => dropped += 1,
        }
    }
    if dropped > 0 {
        warnings.push(format!(
            "the peer predates multimodal content: flattening message '{id}' to text DROPS non-text parts ({dropped} dropped)"
        ));
    }
    message["content"] = Value::String(texts.join("\n"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("1.1"), Some((1, 1, 0)));
        assert_eq!(parse_version("0.0.45"), Some((0, 0, 45)));
        assert_eq!(parse_version("draft"), None);
        assert!(parse_version("0.0.57").unwrap() < V1_0);
    }

    #[test]
    fn current_peer_gets_protocol_version_and_defaults() {
        let (v, w) = prepare_request(json!({"threadId": "t", "runId": "r", "messages": []}), None);
        assert_eq!(v["protocolVersion"], "1.1");
        assert_eq!(v["tools"], json!([]));
        assert_eq!(v["context"], json!([]));
        assert_eq!(v["forwardedProps"], json!({}));
        assert!(w.is_empty());
    }

    #[test]
    fn old_peer_gets_no_protocol_version_and_flattened_text() {
        let input = json!({"threadId": "t", "runId": "r", "protocolVersion": "1.1", "messages": [
            {"id": "u", "role": "user", "content": [{"type": "text", "text": "What?"},
             {"type": "image", "source": {"type": "url", "value": "https://x/c.png"}}]},
            {"id": "a", "role": "activity", "activityType": "x", "content": {}}]});
        let (v, w) = prepare_request(input, parse_version("0.0.39"));
        assert!(v.get("protocolVersion").is_none());
        assert_eq!(
            v["messages"],
            json!([{"id": "u", "role": "user", "content": "What?"}])
        );
        assert!(w[0].contains("DROPS non-text parts"));
    }

    #[test]
    fn a_1_0_peer_gets_1_0_events() {
        let e = Event::from_value(
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}),
        )
        .unwrap();
        let d = downgrade_event(e, (1, 0, 0)).unwrap();
        assert_eq!(d.to_value()["protocolVersion"], "1.0");
        let e = Event::from_value(
            json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message",
            "entityId": "m", "encryptedValue": "x", "encryptedValueType": "t"}),
        )
        .unwrap();
        assert!(downgrade_event(e, (1, 0, 0))
            .unwrap()
            .to_value()
            .get("encryptedValueType")
            .is_none());
        let e = Event::from_value(
            json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n"}),
        )
        .unwrap();
        assert!(downgrade_event(e.clone(), (1, 0, 0)).is_some());
        assert!(downgrade_event(e.clone(), (0, 0, 58)).is_none());
        assert_eq!(
            downgrade_event(e, (1, 1, 0)).map(|e| e.type_name()),
            Some("SUBAGENT_STARTED")
        );
    }

    #[test]
    fn binary_parts_are_upgraded_silently() {
        let input = json!({"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user",
            "content": [{"type": "binary", "mimeType": "image/png", "url": "https://x/l.png"},
                        {"type": "binary", "mimeType": "application/pdf", "data": "AAAA", "filename": "a.pdf"}]}]});
        let (v, w) = prepare_request(input, None);
        assert_eq!(
            v["messages"][0]["content"],
            json!([
            {"type": "image", "source": {"type": "url", "value": "https://x/l.png", "mimeType": "image/png"}},
            {"type": "document", "source": {"type": "data", "value": "AAAA", "mimeType": "application/pdf"},
             "metadata": {"filename": "a.pdf"}}])
        );
        assert!(w.is_empty());
    }

    /// A pre-1.0 peer (CopilotKit's 0.0.48 client) gets a snapshot's user media parts as the
    /// `binary` parts it knows, the way they came in before `prepare_request` upgraded them; a
    /// 1.x peer gets them unchanged.
    #[test]
    fn media_parts_go_to_a_pre_1_0_peer_as_binary_parts() {
        let input = json!({"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user",
            "content": [{"type": "text", "text": "look"},
                        {"type": "binary", "mimeType": "image/png", "url": "https://x/l.png"},
                        {"type": "binary", "mimeType": "application/pdf", "data": "AAAA", "filename": "a.pdf"},
                        {"type": "binary", "mimeType": "audio/wav", "id": "file-1"}]}]});
        let (upgraded, _) = prepare_request(input.clone(), None);
        let messages: Vec<Message> = serde_json::from_value(upgraded["messages"].clone()).unwrap();
        let snapshot = Event::from(EventKind::MessagesSnapshot { messages });
        let old: Value = serde_json::from_str(&event_json_for(&snapshot, (0, 0, 48))).unwrap();
        assert_eq!(
            old["messages"][0]["content"],
            input["messages"][0]["content"]
        );
        let new: Value = serde_json::from_str(&event_json_for(&snapshot, (1, 0, 0))).unwrap();
        assert_eq!(
            new["messages"][0]["content"],
            upgraded["messages"][0]["content"]
        );
    }
}

//! Messages, their content parts and the run input (RUN_STARTED.input) → JSON.

use serde_json::Value;

use super::super::pb;
use super::super::ProtoError;
use super::out::{obj, val, Out};

pub(super) fn run_input(i: pb::RunAgentInput) -> Result<Value, ProtoError> {
    let tools = i
        .tools
        .into_iter()
        .map(|t| {
            Ok(Out::default()
                .s("name", t.name)
                .s("description", t.description)
                .v("parameters", val(t.parameters)?)
                .v("metadata", obj(t.metadata)?)
                .done())
        })
        .collect::<Result<Vec<_>, ProtoError>>()?;
    let context = i
        .context
        .into_iter()
        .map(|c| {
            Out::default()
                .s("description", c.description)
                .s("value", c.value)
                .done()
        })
        .collect::<Vec<_>>();
    let resume = i
        .resume
        .into_iter()
        .map(|r| {
            Ok(Out::default()
                .s("interruptId", r.interrupt_id)
                .s("status", r.status)
                .v("payload", val(r.payload)?)
                .v("metadata", obj(r.metadata)?)
                .done())
        })
        .collect::<Result<Vec<_>, ProtoError>>()?;
    Ok(Out::default()
        .s("threadId", i.thread_id)
        .s("runId", i.run_id)
        .o("protocolVersion", i.protocol_version)
        .o("parentRunId", i.parent_run_id)
        .v("state", val(i.state)?)
        .v("messages", Some(messages(i.messages)?))
        .v("tools", Some(Value::Array(tools)))
        .v("context", Some(Value::Array(context)))
        .v("forwardedProps", val(i.forwarded_props)?)
        .v(
            "resume",
            (!resume.is_empty()).then_some(Value::Array(resume)),
        )
        .done())
}

/// Roles whose content may be a list of parts, and the one whose content is an object.
const PARTS_ROLES: [&str; 2] = ["user", "tool"];
const ACTIVITY_ROLE: &str = "activity";

pub(super) fn messages(messages: Vec<pb::Message>) -> Result<Value, ProtoError> {
    Ok(Value::Array(
        messages
            .into_iter()
            .map(message)
            .collect::<Result<_, _>>()?,
    ))
}

fn message(m: pb::Message) -> Result<Value, ProtoError> {
    let bad = |why: &str| Err(ProtoError::Decode(format!("message {}: {why}", m.id)));
    let uses_parts = PARTS_ROLES.contains(&m.role.as_str());
    let is_activity = m.role == ACTIVITY_ROLE;
    if !uses_parts && !m.content_parts.is_empty() {
        return bad("content parts on a role that has none");
    }
    if m.activity_content.is_some() && !is_activity {
        return bad("activity content on a non-activity role");
    }
    if is_activity && m.content.is_some() {
        return bad("string content on an activity message");
    }
    if m.content.is_some() && !m.content_parts.is_empty() {
        return bad("both string content and content parts");
    }
    let content = if is_activity {
        obj(m.activity_content)?
    } else if uses_parts && m.content.is_none() {
        Some(parts(m.content_parts)?)
    } else {
        m.content.map(Value::String)
    };
    let tool_calls = m
        .tool_calls
        .into_iter()
        .map(tool_call)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Out::default()
        .s("id", m.id)
        .s("role", m.role)
        .v("content", content)
        .o("name", m.name)
        .v(
            "toolCalls",
            (!tool_calls.is_empty()).then_some(Value::Array(tool_calls)),
        )
        .o("toolCallId", m.tool_call_id)
        .o("error", m.error)
        .v("metadata", obj(m.metadata)?)
        .o("subagentRunId", m.subagent_run_id)
        .o("encryptedValue", m.encrypted_value)
        .o("activityType", m.activity_type)
        .o("encryptedValueType", m.encrypted_value_type)
        .done())
}

fn tool_call(t: pb::ToolCall) -> Result<Value, ProtoError> {
    let function = t.function.map(|f| {
        Out::default()
            .s("name", f.name)
            .s("arguments", f.arguments)
            .done()
    });
    Ok(Out::default()
        .s("id", t.id)
        .s("type", t.r#type)
        .v("function", function)
        .v("metadata", obj(t.metadata)?)
        .o("encryptedValue", t.encrypted_value)
        .o("encryptedValueType", t.encrypted_value_type)
        .done())
}

/// Content parts; a part whose arm this build does not know is an error rather than a silent
/// drop (the pipeline reports it; the TypeScript binding warns and drops).
pub(super) fn parts(parts: Vec<pb::InputContent>) -> Result<Value, ProtoError> {
    use pb::input_content::Part;
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        let (ty, id, source, metadata, text) = match p.part {
            Some(Part::Text(t)) => ("text", t.id, None, t.metadata, Some(t.text)),
            Some(Part::Image(i)) => ("image", i.id, i.source, i.metadata, None),
            Some(Part::Audio(a)) => ("audio", a.id, a.source, a.metadata, None),
            Some(Part::Video(v)) => ("video", v.id, v.source, v.metadata, None),
            Some(Part::Document(d)) => ("document", d.id, d.source, d.metadata, None),
            None => {
                return Err(ProtoError::Decode(
                    "a content part of a kind this build does not know".into(),
                ))
            }
        };
        out.push(
            Out::default()
                .s("type", ty.into())
                .o("text", text)
                .o("id", id)
                .v("source", source.map(source_json).transpose()?)
                .v("metadata", val(metadata)?)
                .done(),
        );
    }
    Ok(Value::Array(out))
}

fn source_json(s: pb::InputContentSource) -> Result<Value, ProtoError> {
    use pb::input_content_source::Source;
    let o = Out::default;
    Ok(match s.source {
        Some(Source::Data(d)) => o()
            .s("type", "data".into())
            .s("value", d.value)
            .s("mimeType", d.mime_type),
        Some(Source::Url(u)) => o()
            .s("type", "url".into())
            .s("value", u.value)
            .o("mimeType", u.mime_type),
        Some(Source::File(f)) => o()
            .s("type", "file".into())
            .s("value", f.value)
            .o("provider", f.provider)
            .o("mimeType", f.mime_type),
        None => {
            return Err(ProtoError::Decode(
                "a content source of a kind this build does not know".into(),
            ))
        }
    }
    .done())
}

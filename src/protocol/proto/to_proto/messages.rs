//! Messages, their content parts and the run input (RUN_STARTED.input) → protobuf.

use serde_json::Value;

use super::super::pb;
use super::super::value::object_to_pb;
use super::super::ProtoError;
use super::read::{bad, list, obj, object, opt, present, req, value, Obj};

pub(super) fn run_input(o: &Obj) -> Result<pb::RunAgentInput, ProtoError> {
    Ok(pb::RunAgentInput {
        thread_id: req(o, "threadId")?,
        run_id: req(o, "runId")?,
        parent_run_id: opt(o, "parentRunId")?,
        state: value(o, "state")?,
        messages: messages(o, "messages")?,
        tools: list(o, "tools")?
            .iter()
            .map(|t| {
                let t = obj(t, "tool")?;
                Ok(pb::Tool {
                    name: req(t, "name")?,
                    description: req(t, "description")?,
                    parameters: value(t, "parameters")?,
                    metadata: object(t, "metadata")?,
                })
            })
            .collect::<Result<_, ProtoError>>()?,
        context: list(o, "context")?
            .iter()
            .map(|c| {
                let c = obj(c, "context")?;
                Ok(pb::Context {
                    description: req(c, "description")?,
                    value: req(c, "value")?,
                })
            })
            .collect::<Result<_, ProtoError>>()?,
        forwarded_props: value(o, "forwardedProps")?,
        resume: list(o, "resume")?
            .iter()
            .map(|r| {
                let r = obj(r, "resume")?;
                Ok(pb::ResumeEntry {
                    interrupt_id: req(r, "interruptId")?,
                    status: req(r, "status")?,
                    payload: value(r, "payload")?,
                    metadata: object(r, "metadata")?,
                })
            })
            .collect::<Result<_, ProtoError>>()?,
        protocol_version: opt(o, "protocolVersion")?,
    })
}

pub(super) fn messages(o: &Obj, key: &str) -> Result<Vec<pb::Message>, ProtoError> {
    list(o, key)?
        .iter()
        .map(|m| message(obj(m, "message")?))
        .collect()
}

/// One message of any role: the wire's `Message` is the union of every role's fields; which
/// field holds `content` depends on its form (string, parts, or an activity's object).
fn message(o: &Obj) -> Result<pb::Message, ProtoError> {
    let role = req(o, "role")?;
    let (mut text, mut content_parts, mut activity_content) = (None, Vec::new(), None);
    match present(o, "content") {
        Some(Value::Object(map)) if role == "activity" => {
            activity_content = Some(object_to_pb(map)?)
        }
        Some(_) => (text, content_parts) = content(o, "message.content")?,
        None if role == "activity" => activity_content = Some(Default::default()),
        None => {}
    }
    Ok(pb::Message {
        id: req(o, "id")?,
        role,
        content: text,
        name: opt(o, "name")?,
        tool_calls: list(o, "toolCalls")?
            .iter()
            .map(|t| tool_call(obj(t, "toolCall")?))
            .collect::<Result<_, _>>()?,
        tool_call_id: opt(o, "toolCallId")?,
        error: opt(o, "error")?,
        content_parts,
        metadata: object(o, "metadata")?,
        subagent_run_id: opt(o, "subagentRunId")?,
        encrypted_value: opt(o, "encryptedValue")?,
        activity_type: opt(o, "activityType")?,
        activity_content,
        encrypted_value_type: opt(o, "encryptedValueType")?,
    })
}

fn tool_call(o: &Obj) -> Result<pb::ToolCall, ProtoError> {
    let function = match present(o, "function") {
        Some(f) => {
            let f = obj(f, "function")?;
            Some(pb::tool_call::Function {
                name: req(f, "name")?,
                arguments: req(f, "arguments")?,
            })
        }
        None => None,
    };
    Ok(pb::ToolCall {
        id: req(o, "id")?,
        r#type: req(o, "type")?,
        function,
        metadata: object(o, "metadata")?,
        encrypted_value: opt(o, "encryptedValue")?,
        encrypted_value_type: opt(o, "encryptedValueType")?,
    })
}

/// `content` as a string, or as a list of parts (`content_parts`).
pub(super) fn content(
    o: &Obj,
    at: &str,
) -> Result<(Option<String>, Vec<pb::InputContent>), ProtoError> {
    match present(o, "content") {
        None => Ok((None, Vec::new())),
        Some(Value::String(s)) => Ok((Some(s.clone()), Vec::new())),
        Some(Value::Array(parts)) => {
            let parts = parts
                .iter()
                .enumerate()
                .map(|(i, p)| part(obj(p, "content part")?, &format!("{at}[{i}]")))
                .collect::<Result<_, _>>()?;
            Ok((None, parts))
        }
        Some(_) => Err(bad(format!("{at} is neither a string nor a list"))),
    }
}

fn part(o: &Obj, at: &str) -> Result<pb::InputContent, ProtoError> {
    use pb::input_content::Part;
    let ty = req(o, "type")?;
    let id = opt(o, "id")?;
    let metadata = value(o, "metadata")?;
    let src = || -> Result<Option<pb::InputContentSource>, ProtoError> {
        present(o, "source")
            .map(|s| source(obj(s, "source")?))
            .transpose()
    };
    let part = match ty.as_str() {
        "text" => Part::Text(pb::TextInputPart {
            text: req(o, "text")?,
            id,
            metadata,
        }),
        "image" => Part::Image(pb::ImageInputPart {
            source: src()?,
            metadata,
            id,
        }),
        "audio" => Part::Audio(pb::AudioInputPart {
            source: src()?,
            metadata,
            id,
        }),
        "video" => Part::Video(pb::VideoInputPart {
            source: src()?,
            metadata,
            id,
        }),
        "document" => Part::Document(pb::DocumentInputPart {
            source: src()?,
            metadata,
            id,
        }),
        other => return Err(bad(format!("{at}: no protobuf form for a '{other}' part"))),
    };
    Ok(pb::InputContent { part: Some(part) })
}

fn source(o: &Obj) -> Result<pb::InputContentSource, ProtoError> {
    use pb::input_content_source::Source;
    let s = match req(o, "type")?.as_str() {
        "data" => Source::Data(pb::InputContentDataSource {
            value: req(o, "value")?,
            mime_type: req(o, "mimeType")?,
        }),
        "url" => Source::Url(pb::InputContentUrlSource {
            value: req(o, "value")?,
            mime_type: opt(o, "mimeType")?,
        }),
        "file" => Source::File(pb::InputContentFileSource {
            value: req(o, "value")?,
            provider: opt(o, "provider")?,
            mime_type: opt(o, "mimeType")?,
        }),
        other => return Err(bad(format!("no protobuf form for a '{other}' source"))),
    };
    Ok(pb::InputContentSource { source: Some(s) })
}

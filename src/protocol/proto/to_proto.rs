//! An event's JSON wire form → the protobuf `Event`.
//!
//! Keyed by the JSON field names, like `@ag-ui/proto`'s encoder: every field the `.proto` has a
//! slot for is carried; members it has none for (an unknown field, an extra member on a patch
//! operation other than `from`/`value`) cannot travel and are left out.

use serde_json::{Map, Value};

use super::pb::{self, event::Event as Arm};
use super::value::{object_to_pb, to_pb};
use super::ProtoError;

type Obj = Map<String, Value>;

/// Map an event's JSON object (as on the SSE wire) to the protobuf envelope.
pub fn json_to_event(event: &Value) -> Result<pb::Event, ProtoError> {
    let o = event
        .as_object()
        .ok_or_else(|| bad("an event must be a JSON object".into()))?;
    let ty = o
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("the event has no type".into()))?;
    let event_type = pb::EventType::from_str_name(ty)
        .ok_or_else(|| bad(format!("no protobuf form for event type {ty}")))?;
    let b = Some(pb::BaseEvent {
        r#type: event_type as i32,
        timestamp: int(o, "timestamp")?,
        raw_event: value(o, "rawEvent")?,
        metadata: object(o, "metadata")?,
    });
    let sub = || opt(o, "subagentRunId");
    let arm = match event_type {
        pb::EventType::TextMessageStart => Arm::TextMessageStart(pb::TextMessageStartEvent {
            base_event: b,
            message_id: req(o, "messageId")?,
            role: opt(o, "role")?,
            name: opt(o, "name")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::TextMessageContent => Arm::TextMessageContent(pb::TextMessageContentEvent {
            base_event: b,
            message_id: req(o, "messageId")?,
            delta: req(o, "delta")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::TextMessageEnd => Arm::TextMessageEnd(pb::TextMessageEndEvent {
            base_event: b,
            message_id: req(o, "messageId")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::TextMessageChunk => Arm::TextMessageChunk(pb::TextMessageChunkEvent {
            base_event: b,
            message_id: opt(o, "messageId")?,
            role: opt(o, "role")?,
            delta: opt(o, "delta")?,
            name: opt(o, "name")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::ToolCallStart => Arm::ToolCallStart(pb::ToolCallStartEvent {
            base_event: b,
            tool_call_id: req(o, "toolCallId")?,
            tool_call_name: req(o, "toolCallName")?,
            parent_message_id: opt(o, "parentMessageId")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::ToolCallArgs => Arm::ToolCallArgs(pb::ToolCallArgsEvent {
            base_event: b,
            tool_call_id: req(o, "toolCallId")?,
            delta: req(o, "delta")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::ToolCallEnd => Arm::ToolCallEnd(pb::ToolCallEndEvent {
            base_event: b,
            tool_call_id: req(o, "toolCallId")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::ToolCallChunk => Arm::ToolCallChunk(pb::ToolCallChunkEvent {
            base_event: b,
            tool_call_id: opt(o, "toolCallId")?,
            tool_call_name: opt(o, "toolCallName")?,
            parent_message_id: opt(o, "parentMessageId")?,
            delta: opt(o, "delta")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::ToolCallResult => {
            let (content, content_parts) = content(o, "TOOL_CALL_RESULT.content")?;
            Arm::ToolCallResult(pb::ToolCallResultEvent {
                base_event: b,
                subagent_run_id: sub()?,
                message_id: req(o, "messageId")?,
                tool_call_id: req(o, "toolCallId")?,
                content,
                role: opt(o, "role")?,
                content_parts,
            })
        }
        pb::EventType::StateSnapshot => Arm::StateSnapshot(pb::StateSnapshotEvent {
            base_event: b,
            snapshot: Some(to_pb(o.get("snapshot").unwrap_or(&Value::Null))?),
            subagent_run_id: sub()?,
        }),
        pb::EventType::StateDelta => Arm::StateDelta(pb::StateDeltaEvent {
            base_event: b,
            delta: patch(o, "delta")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::MessagesSnapshot => Arm::MessagesSnapshot(pb::MessagesSnapshotEvent {
            base_event: b,
            messages: messages(o, "messages")?,
        }),
        pb::EventType::ActivitySnapshot => Arm::ActivitySnapshot(pb::ActivitySnapshotEvent {
            base_event: b,
            subagent_run_id: sub()?,
            message_id: req(o, "messageId")?,
            activity_type: req(o, "activityType")?,
            content: Some(object(o, "content")?.unwrap_or_default()),
            replace: boolean(o, "replace")?,
        }),
        pb::EventType::ActivityDelta => Arm::ActivityDelta(pb::ActivityDeltaEvent {
            base_event: b,
            subagent_run_id: sub()?,
            message_id: req(o, "messageId")?,
            activity_type: req(o, "activityType")?,
            patch: patch(o, "patch")?,
        }),
        pb::EventType::Raw => Arm::Raw(pb::RawEvent {
            base_event: b,
            event: Some(to_pb(o.get("event").unwrap_or(&Value::Null))?),
            source: opt(o, "source")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::Custom => Arm::Custom(pb::CustomEvent {
            base_event: b,
            name: req(o, "name")?,
            value: Some(to_pb(o.get("value").unwrap_or(&Value::Null))?),
            subagent_run_id: sub()?,
        }),
        pb::EventType::RunStarted => Arm::RunStarted(pb::RunStartedEvent {
            base_event: b,
            thread_id: req(o, "threadId")?,
            run_id: req(o, "runId")?,
            parent_run_id: opt(o, "parentRunId")?,
            input: match present(o, "input") {
                Some(v) => Some(run_input(obj(v, "input")?)?),
                None => None,
            },
            protocol_version: opt(o, "protocolVersion")?,
        }),
        pb::EventType::RunFinished => run_finished(o, b)?,
        pb::EventType::RunError => Arm::RunError(pb::RunErrorEvent {
            base_event: b,
            code: opt(o, "code")?,
            message: req(o, "message")?,
            usage: usage(o)?,
        }),
        pb::EventType::StepStarted => Arm::StepStarted(pb::StepStartedEvent {
            base_event: b,
            step_name: req(o, "stepName")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::StepFinished => Arm::StepFinished(pb::StepFinishedEvent {
            base_event: b,
            step_name: req(o, "stepName")?,
            subagent_run_id: sub()?,
        }),
        pb::EventType::ReasoningStart => Arm::ReasoningStart(pb::ReasoningStartEvent {
            base_event: b,
            subagent_run_id: sub()?,
            message_id: req(o, "messageId")?,
        }),
        pb::EventType::ReasoningMessageStart => {
            Arm::ReasoningMessageStart(pb::ReasoningMessageStartEvent {
                base_event: b,
                subagent_run_id: sub()?,
                message_id: req(o, "messageId")?,
                role: req(o, "role")?,
            })
        }
        pb::EventType::ReasoningMessageContent => {
            Arm::ReasoningMessageContent(pb::ReasoningMessageContentEvent {
                base_event: b,
                subagent_run_id: sub()?,
                message_id: req(o, "messageId")?,
                delta: req(o, "delta")?,
            })
        }
        pb::EventType::ReasoningMessageEnd => {
            Arm::ReasoningMessageEnd(pb::ReasoningMessageEndEvent {
                base_event: b,
                subagent_run_id: sub()?,
                message_id: req(o, "messageId")?,
            })
        }
        pb::EventType::ReasoningMessageChunk => {
            Arm::ReasoningMessageChunk(pb::ReasoningMessageChunkEvent {
                base_event: b,
                subagent_run_id: sub()?,
                message_id: opt(o, "messageId")?,
                delta: opt(o, "delta")?,
            })
        }
        pb::EventType::ReasoningEnd => Arm::ReasoningEnd(pb::ReasoningEndEvent {
            base_event: b,
            subagent_run_id: sub()?,
            message_id: req(o, "messageId")?,
        }),
        pb::EventType::ReasoningEncryptedValue => {
            Arm::ReasoningEncryptedValue(pb::ReasoningEncryptedValueEvent {
                base_event: b,
                subagent_run_id: sub()?,
                subtype: req(o, "subtype")?,
                entity_id: req(o, "entityId")?,
                encrypted_value: req(o, "encryptedValue")?,
                encrypted_value_type: opt(o, "encryptedValueType")?,
            })
        }
        pb::EventType::SubagentStarted => Arm::SubagentStarted(pb::SubagentStartedEvent {
            base_event: b,
            subagent_run_id: req(o, "subagentRunId")?,
            name: req(o, "name")?,
            description: opt(o, "description")?,
            parent_subagent_run_id: opt(o, "parentSubagentRunId")?,
            parent_tool_call_id: opt(o, "parentToolCallId")?,
            parent_message_id: opt(o, "parentMessageId")?,
        }),
        pb::EventType::SubagentFinished => {
            let (outcome, interrupt_ids) = match present(o, "outcome") {
                None => (String::new(), Vec::new()),
                Some(v) => {
                    let out = obj(v, "outcome")?;
                    (req(out, "type")?, strings(out, "interruptIds")?)
                }
            };
            Arm::SubagentFinished(pb::SubagentFinishedEvent {
                base_event: b,
                subagent_run_id: req(o, "subagentRunId")?,
                result: value(o, "result")?,
                outcome,
                interrupt_ids,
            })
        }
        pb::EventType::SubagentError => Arm::SubagentError(pb::SubagentErrorEvent {
            base_event: b,
            subagent_run_id: req(o, "subagentRunId")?,
            message: req(o, "message")?,
            code: opt(o, "code")?,
        }),
    };
    Ok(pb::Event { event: Some(arm) })
}

/// `RUN_FINISHED`: the outcome object flattens into its type name plus the lists it carries.
fn run_finished(o: &Obj, b: Option<pb::BaseEvent>) -> Result<Arm, ProtoError> {
    let (outcome, interrupts, pending) = match present(o, "outcome") {
        None => (String::new(), Vec::new(), Vec::new()),
        Some(v) => {
            let out = obj(v, "outcome")?;
            let interrupts = list(out, "interrupts")?
                .iter()
                .map(|i| interrupt(obj(i, "interrupt")?))
                .collect::<Result<_, _>>()?;
            (
                req(out, "type")?,
                interrupts,
                strings(out, "pendingToolCallIds")?,
            )
        }
    };
    Ok(Arm::RunFinished(pb::RunFinishedEvent {
        base_event: b,
        thread_id: req(o, "threadId")?,
        run_id: req(o, "runId")?,
        result: value(o, "result")?,
        outcome,
        interrupts,
        usage: usage(o)?,
        pending_tool_call_ids: pending,
    }))
}

fn interrupt(o: &Obj) -> Result<pb::Interrupt, ProtoError> {
    Ok(pb::Interrupt {
        id: req(o, "id")?,
        reason: req(o, "reason")?,
        message: opt(o, "message")?,
        tool_call_id: opt(o, "toolCallId")?,
        response_schema: value(o, "responseSchema")?,
        expires_at: opt(o, "expiresAt")?,
        metadata: value(o, "metadata")?,
        subagent_run_id: opt(o, "subagentRunId")?,
    })
}

fn usage(o: &Obj) -> Result<Vec<pb::Usage>, ProtoError> {
    list(o, "usage")?
        .iter()
        .map(|u| {
            let u = obj(u, "usage")?;
            Ok(pb::Usage {
                provider: opt(u, "provider")?,
                model: opt(u, "model")?,
                input_tokens: int(u, "inputTokens")?,
                output_tokens: int(u, "outputTokens")?,
                total_tokens: int(u, "totalTokens")?,
                reasoning_tokens: int(u, "reasoningTokens")?,
                cached_input_tokens: int(u, "cachedInputTokens")?,
                cache_write_input_tokens: int(u, "cacheWriteInputTokens")?,
            })
        })
        .collect()
}

fn run_input(o: &Obj) -> Result<pb::RunAgentInput, ProtoError> {
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

fn messages(o: &Obj, key: &str) -> Result<Vec<pb::Message>, ProtoError> {
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
fn content(o: &Obj, at: &str) -> Result<(Option<String>, Vec<pb::InputContent>), ProtoError> {
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

/// RFC 6902 operations: `op` becomes the enum; `path`, `from` and `value` are carried.
fn patch(o: &Obj, key: &str) -> Result<Vec<pb::JsonPatchOperation>, ProtoError> {
    list(o, key)?
        .iter()
        .map(|op| {
            let op = obj(op, "patch operation")?;
            let name = req(op, "op")?;
            let kind = pb::JsonPatchOperationType::from_str_name(&name.to_ascii_uppercase())
                .filter(|_| name.chars().all(|c| c.is_ascii_lowercase()))
                .ok_or_else(|| bad(format!("no protobuf form for patch op '{name}'")))?;
            Ok(pb::JsonPatchOperation {
                op: kind as i32,
                path: req(op, "path")?,
                from: opt(op, "from")?,
                value: match op.get("value") {
                    Some(v) => Some(to_pb(v)?),
                    None => None,
                },
            })
        })
        .collect()
}

fn bad(why: String) -> ProtoError {
    ProtoError::Encode(why)
}

/// A member that is present and not `null` (absent optional fields may arrive as `null` from
/// legacy producers; the binding omits them).
fn present<'a>(o: &'a Obj, key: &str) -> Option<&'a Value> {
    o.get(key).filter(|v| !v.is_null())
}

fn obj<'a>(v: &'a Value, what: &str) -> Result<&'a Obj, ProtoError> {
    v.as_object()
        .ok_or_else(|| bad(format!("{what} is not an object")))
}

fn req(o: &Obj, key: &str) -> Result<String, ProtoError> {
    Ok(opt(o, key)?.unwrap_or_default())
}

fn opt(o: &Obj, key: &str) -> Result<Option<String>, ProtoError> {
    match present(o, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("{key} is not a string"))),
    }
}

fn int(o: &Obj, key: &str) -> Result<Option<i64>, ProtoError> {
    match present(o, key) {
        None => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| bad(format!("{key} is not a 64-bit integer"))),
    }
}

fn boolean(o: &Obj, key: &str) -> Result<Option<bool>, ProtoError> {
    match present(o, key) {
        None => Ok(None),
        Some(v) => v
            .as_bool()
            .map(Some)
            .ok_or_else(|| bad(format!("{key} is not a boolean"))),
    }
}

/// Open JSON (any value, `null` included when present: a `null` result is data).
fn value(o: &Obj, key: &str) -> Result<Option<prost_types::Value>, ProtoError> {
    o.get(key).map(to_pb).transpose()
}

fn object(o: &Obj, key: &str) -> Result<Option<prost_types::Struct>, ProtoError> {
    match present(o, key) {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(object_to_pb(m)?)),
        Some(_) => Err(bad(format!("{key} is not an object"))),
    }
}

fn list<'a>(o: &'a Obj, key: &str) -> Result<&'a [Value], ProtoError> {
    match present(o, key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(bad(format!("{key} is not a list"))),
    }
}

fn strings(o: &Obj, key: &str) -> Result<Vec<String>, ProtoError> {
    list(o, key)?
        .iter()
        .map(|s| {
            s.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(format!("{key} holds a non-string")))
        })
        .collect()
}

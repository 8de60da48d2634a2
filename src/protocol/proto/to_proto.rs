//! An event's JSON wire form → the protobuf `Event`.
//!
//! Keyed by the JSON field names, like `@ag-ui/proto`'s encoder: every field the `.proto` has a
//! slot for is carried; members it has none for (an unknown field, an extra member on a patch
//! operation other than `from`/`value`) cannot travel and are left out.

mod messages;
mod read;

use serde_json::Value;

use super::pb::{self, event::Event as Arm};
use super::value::to_pb;
use super::ProtoError;
use messages::{content, messages, run_input};
use read::{bad, boolean, int, list, obj, object, opt, present, req, strings, value, Obj};

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

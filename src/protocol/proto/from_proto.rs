//! The protobuf `Event` → the event's JSON wire form, which then goes through the same pipeline
//! (enforcement, verification) as an event read off SSE.
//!
//! Mirrors `@ag-ui/proto`'s decoder: the envelope's arm names the event type and must agree with
//! `base_event.type`; required strings come out even when empty (protobuf cannot tell), optional
//! ones only when present; empty lists that stand for an absent member are left out.

mod messages;
mod out;

use serde_json::{Map, Value};

use super::pb::{self, event::Event as Arm};
use super::ProtoError;
use messages::{messages, parts, run_input};
use out::{obj, strings, val, Out};

/// Map a decoded envelope to the event's JSON object.
pub fn event_to_json(event: pb::Event) -> Result<Value, ProtoError> {
    let arm = event.event.ok_or(ProtoError::UnknownEventType)?;
    let (ty, base, out) = body(arm)?;
    let base = base.ok_or_else(|| ProtoError::Decode(format!("{ty} carries no base_event")))?;
    let declared = pb::EventType::try_from(base.r#type).map(|t| t.as_str_name());
    if declared != Ok(ty) {
        return Err(ProtoError::Decode(format!(
            "the envelope carries {ty} but its base event declares {}",
            declared.unwrap_or("an unknown type")
        )));
    }
    let mut out = out.0;
    let mut map = Map::with_capacity(out.len() + 4);
    map.insert("type".into(), Value::String(ty.into()));
    map.append(&mut out);
    if let Some(t) = base.timestamp {
        map.insert("timestamp".into(), Value::from(t));
    }
    if let Some(r) = val(base.raw_event)? {
        map.insert("rawEvent".into(), r);
    }
    if let Some(m) = obj(base.metadata)? {
        map.insert("metadata".into(), m);
    }
    Ok(Value::Object(map))
}

type Body = (&'static str, Option<pb::BaseEvent>, Out);

fn body(arm: Arm) -> Result<Body, ProtoError> {
    let o = Out::default;
    Ok(match arm {
        Arm::TextMessageStart(e) => (
            "TEXT_MESSAGE_START",
            e.base_event,
            o().s("messageId", e.message_id)
                .o("role", e.role)
                .o("name", e.name)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::TextMessageContent(e) => (
            "TEXT_MESSAGE_CONTENT",
            e.base_event,
            o().s("messageId", e.message_id)
                .s("delta", e.delta)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::TextMessageEnd(e) => (
            "TEXT_MESSAGE_END",
            e.base_event,
            o().s("messageId", e.message_id)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::TextMessageChunk(e) => (
            "TEXT_MESSAGE_CHUNK",
            e.base_event,
            o().o("messageId", e.message_id)
                .o("role", e.role)
                .o("delta", e.delta)
                .o("name", e.name)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ToolCallStart(e) => (
            "TOOL_CALL_START",
            e.base_event,
            o().s("toolCallId", e.tool_call_id)
                .s("toolCallName", e.tool_call_name)
                .o("parentMessageId", e.parent_message_id)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ToolCallArgs(e) => (
            "TOOL_CALL_ARGS",
            e.base_event,
            o().s("toolCallId", e.tool_call_id)
                .s("delta", e.delta)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ToolCallEnd(e) => (
            "TOOL_CALL_END",
            e.base_event,
            o().s("toolCallId", e.tool_call_id)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ToolCallChunk(e) => (
            "TOOL_CALL_CHUNK",
            e.base_event,
            o().o("toolCallId", e.tool_call_id)
                .o("toolCallName", e.tool_call_name)
                .o("parentMessageId", e.parent_message_id)
                .o("delta", e.delta)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ToolCallResult(e) => {
            if e.content.is_some() && !e.content_parts.is_empty() {
                return Err(ProtoError::Decode(
                    "TOOL_CALL_RESULT carries both string content and content parts".into(),
                ));
            }
            let content = match e.content {
                Some(s) => Value::String(s),
                None => parts(e.content_parts)?,
            };
            (
                "TOOL_CALL_RESULT",
                e.base_event,
                o().s("messageId", e.message_id)
                    .s("toolCallId", e.tool_call_id)
                    .v("content", Some(content))
                    .o("role", e.role)
                    .o("subagentRunId", e.subagent_run_id),
            )
        }
        Arm::StateSnapshot(e) => (
            "STATE_SNAPSHOT",
            e.base_event,
            o().v("snapshot", Some(val(e.snapshot)?.unwrap_or(Value::Null)))
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::StateDelta(e) => (
            "STATE_DELTA",
            e.base_event,
            o().v("delta", Some(patch(e.delta)?))
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::MessagesSnapshot(e) => (
            "MESSAGES_SNAPSHOT",
            e.base_event,
            o().v("messages", Some(messages(e.messages)?)),
        ),
        Arm::ActivitySnapshot(e) => (
            "ACTIVITY_SNAPSHOT",
            e.base_event,
            o().s("messageId", e.message_id)
                .s("activityType", e.activity_type)
                .v(
                    "content",
                    Some(obj(e.content)?.unwrap_or_else(|| Value::Object(Map::new()))),
                )
                .v("replace", e.replace.map(Value::Bool))
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ActivityDelta(e) => (
            "ACTIVITY_DELTA",
            e.base_event,
            o().s("messageId", e.message_id)
                .s("activityType", e.activity_type)
                .v("patch", Some(patch(e.patch)?))
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::Raw(e) => (
            "RAW",
            e.base_event,
            o().v("event", Some(val(e.event)?.unwrap_or(Value::Null)))
                .o("source", e.source)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::Custom(e) => (
            "CUSTOM",
            e.base_event,
            o().s("name", e.name)
                .v("value", Some(val(e.value)?.unwrap_or(Value::Null)))
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::RunStarted(e) => (
            "RUN_STARTED",
            e.base_event,
            o().s("threadId", e.thread_id)
                .s("runId", e.run_id)
                .o("parentRunId", e.parent_run_id)
                .v("input", e.input.map(run_input).transpose()?)
                .o("protocolVersion", e.protocol_version),
        ),
        Arm::RunFinished(e) => {
            let outcome = (!e.outcome.is_empty())
                .then(|| -> Result<Value, ProtoError> {
                    let interrupts = e
                        .interrupts
                        .into_iter()
                        .map(interrupt)
                        .collect::<Result<Vec<_>, _>>()?;
                    let interrupts = (e.outcome == "interrupt" || !interrupts.is_empty())
                        .then(|| Value::Array(interrupts));
                    Ok(o()
                        .s("type", e.outcome)
                        .v("interrupts", interrupts)
                        .v("pendingToolCallIds", strings(e.pending_tool_call_ids))
                        .done())
                })
                .transpose()?;
            (
                "RUN_FINISHED",
                e.base_event,
                o().s("threadId", e.thread_id)
                    .s("runId", e.run_id)
                    .v("result", val(e.result)?)
                    .v("outcome", outcome)
                    .v("usage", usage(e.usage)),
            )
        }
        Arm::RunError(e) => (
            "RUN_ERROR",
            e.base_event,
            o().s("message", e.message)
                .o("code", e.code)
                .v("usage", usage(e.usage)),
        ),
        Arm::StepStarted(e) => (
            "STEP_STARTED",
            e.base_event,
            o().s("stepName", e.step_name)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::StepFinished(e) => (
            "STEP_FINISHED",
            e.base_event,
            o().s("stepName", e.step_name)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ReasoningStart(e) => (
            "REASONING_START",
            e.base_event,
            o().s("messageId", e.message_id)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ReasoningMessageStart(e) => (
            "REASONING_MESSAGE_START",
            e.base_event,
            o().s("messageId", e.message_id)
                .s("role", e.role)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ReasoningMessageContent(e) => (
            "REASONING_MESSAGE_CONTENT",
            e.base_event,
            o().s("messageId", e.message_id)
                .s("delta", e.delta)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ReasoningMessageEnd(e) => (
            "REASONING_MESSAGE_END",
            e.base_event,
            o().s("messageId", e.message_id)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ReasoningMessageChunk(e) => (
            "REASONING_MESSAGE_CHUNK",
            e.base_event,
            o().o("messageId", e.message_id)
                .o("delta", e.delta)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ReasoningEnd(e) => (
            "REASONING_END",
            e.base_event,
            o().s("messageId", e.message_id)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::ReasoningEncryptedValue(e) => (
            "REASONING_ENCRYPTED_VALUE",
            e.base_event,
            o().s("subtype", e.subtype)
                .s("entityId", e.entity_id)
                .s("encryptedValue", e.encrypted_value)
                .o("encryptedValueType", e.encrypted_value_type)
                .o("subagentRunId", e.subagent_run_id),
        ),
        Arm::SubagentStarted(e) => (
            "SUBAGENT_STARTED",
            e.base_event,
            o().s("subagentRunId", e.subagent_run_id)
                .s("name", e.name)
                .o("description", e.description)
                .o("parentSubagentRunId", e.parent_subagent_run_id)
                .o("parentToolCallId", e.parent_tool_call_id)
                .o("parentMessageId", e.parent_message_id),
        ),
        Arm::SubagentFinished(e) => {
            let outcome = (!e.outcome.is_empty()).then(|| {
                o().s("type", e.outcome)
                    .v("interruptIds", strings(e.interrupt_ids))
                    .done()
            });
            (
                "SUBAGENT_FINISHED",
                e.base_event,
                o().s("subagentRunId", e.subagent_run_id)
                    .v("result", val(e.result)?)
                    .v("outcome", outcome),
            )
        }
        Arm::SubagentError(e) => (
            "SUBAGENT_ERROR",
            e.base_event,
            o().s("subagentRunId", e.subagent_run_id)
                .s("message", e.message)
                .o("code", e.code),
        ),
    })
}

fn interrupt(i: pb::Interrupt) -> Result<Value, ProtoError> {
    Ok(Out::default()
        .s("id", i.id)
        .s("reason", i.reason)
        .o("message", i.message)
        .o("toolCallId", i.tool_call_id)
        .v("responseSchema", val(i.response_schema)?)
        .o("expiresAt", i.expires_at)
        .v("metadata", val(i.metadata)?)
        .o("subagentRunId", i.subagent_run_id)
        .done())
}

fn usage(usage: Vec<pb::Usage>) -> Option<Value> {
    if usage.is_empty() {
        return None;
    }
    let n = |v: Option<i64>| v.map(Value::from);
    Some(Value::Array(
        usage
            .into_iter()
            .map(|u| {
                Out::default()
                    .o("provider", u.provider)
                    .o("model", u.model)
                    .v("inputTokens", n(u.input_tokens))
                    .v("outputTokens", n(u.output_tokens))
                    .v("totalTokens", n(u.total_tokens))
                    .v("reasoningTokens", n(u.reasoning_tokens))
                    .v("cachedInputTokens", n(u.cached_input_tokens))
                    .v("cacheWriteInputTokens", n(u.cache_write_input_tokens))
                    .done()
            })
            .collect(),
    ))
}

fn patch(ops: Vec<pb::JsonPatchOperation>) -> Result<Value, ProtoError> {
    let ops = ops
        .into_iter()
        .map(|op| {
            let name = pb::JsonPatchOperationType::try_from(op.op)
                .map(|t| t.as_str_name().to_ascii_lowercase())
                .unwrap_or_else(|_| op.op.to_string());
            Ok(Out::default()
                .s("op", name)
                .s("path", op.path)
                .o("from", op.from)
                .v("value", val(op.value)?)
                .done())
        })
        .collect::<Result<Vec<_>, ProtoError>>()?;
    Ok(Value::Array(ops))
}

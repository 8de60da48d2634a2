//! The `full` scenario: one run that emits every event type a producer may send in AG-UI 1.1
//! (30 of the 31; `RUN_STARTED`/`RUN_FINISHED` come from the runtime and `RUN_ERROR` cannot
//! appear in a run that succeeds).
//!
//! The runtime verifies explicit triads but passes `*_CHUNK` events through, so this scenario
//! keeps its own client-side view of the run — the shared chunk expander and reducer — which
//! both keeps its chunk streams honest and gives the exact messages for `MESSAGES_SNAPSHOT`.

use serde_json::{json, Value};

use crate::protocol::chunks::ChunkExpander;
use crate::protocol::event::{EncryptedSubtype, Event, EventKind};
use crate::protocol::reduce::Conversation;
use crate::protocol::types::{Content, Message, ReasoningRole, TextRole};
use crate::server::agents::{AgentError, RunContext, RunEnd};

use super::showcase::{base64, in_lane};
use super::text::tokens;

/// The run's context plus what a client has built from the run so far.
struct Tour<'a> {
    ctx: &'a mut RunContext,
    chunks: ChunkExpander,
    view: Conversation,
}

impl Tour<'_> {
    async fn emit(&mut self, event: impl Into<Event>) -> Result<(), AgentError> {
        let event = event.into();
        self.ctx.emit(event.clone()).await?;
        // Our own chunk streams are checked here, since the runtime does not check them.
        let expanded = self
            .chunks
            .expand(event)
            .map_err(|e| AgentError::failed(crate::wire::RunErrorCode::AgentProtocolError, e))?;
        for e in &expanded {
            self.view.apply(e);
        }
        self.ctx.sleep(self.ctx.settings.token_delay).await
    }

    async fn text(&mut self, text: &str, lane: Option<&str>) -> Result<String, AgentError> {
        let id = self.ctx.new_id("msg");
        let start = EventKind::TextMessageStart {
            message_id: id.clone(),
            role: Some(TextRole::Assistant),
            name: None,
        };
        self.emit(in_lane(start, lane)).await?;
        for t in tokens(text) {
            let delta = t.to_string();
            let content = EventKind::TextMessageContent {
                message_id: id.clone(),
                delta,
            };
            self.emit(in_lane(content, lane)).await?;
        }
        let end = EventKind::TextMessageEnd {
            message_id: id.clone(),
        };
        self.emit(in_lane(end, lane)).await?;
        Ok(id)
    }

    async fn step(&mut self, name: &str, start: bool) -> Result<(), AgentError> {
        let step_name = name.to_string();
        self.emit(if start {
            EventKind::StepStarted { step_name }
        } else {
            EventKind::StepFinished { step_name }
        })
        .await
    }
}

pub async fn full(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let view = Conversation::from_input(&ctx.input);
    let mut t = Tour {
        ctx,
        chunks: ChunkExpander::new(),
        view,
    };
    t.step("tour", true).await?;
    let intro = t
        .text(
            "This run sends every event type a producer may send in AG-UI 1.1.",
            None,
        )
        .await?;

    // Tool calls: an explicit triad, then the same thing as chunks; a result for each.
    let call = t.ctx.new_id("call");
    t.emit(EventKind::ToolCallStart {
        tool_call_id: call.clone(),
        tool_call_name: "calculate".into(),
        parent_message_id: Some(intro.clone()),
    })
    .await?;
    for delta in [r#"{"expression":"#, r#""6 * 7"}"#] {
        t.emit(EventKind::ToolCallArgs {
            tool_call_id: call.clone(),
            delta: delta.into(),
        })
        .await?;
    }
    t.emit(EventKind::ToolCallEnd {
        tool_call_id: call.clone(),
    })
    .await?;
    let result = json!({"expression": "6 * 7", "result": 42});
    result_for(&mut t, &call, result).await?;
    let chunked = t.ctx.new_id("call");
    t.emit(EventKind::ToolCallChunk {
        tool_call_id: Some(chunked.clone()),
        tool_call_name: Some("convert_units".into()),
        parent_message_id: Some(intro.clone()),
        delta: Some(r#"{"value":10,"#.into()),
    })
    .await?;
    t.emit(EventKind::ToolCallChunk {
        tool_call_id: None,
        tool_call_name: None,
        parent_message_id: None,
        delta: Some(r#""from":"km","to":"mi"}"#.into()),
    })
    .await?;
    // The result is the next non-chunk event, so it also closes the chunked call.
    let result = json!({"value": 10, "from": "km", "to": "mi", "result": 6.2137});
    result_for(&mut t, &chunked, result).await?;

    // Text as chunks: an opener with id and role, a continuation without.
    let chunk_msg = t.ctx.new_id("msg");
    t.emit(EventKind::TextMessageChunk {
        message_id: Some(chunk_msg),
        role: Some(TextRole::Assistant),
        delta: Some("Chunked text works too: ".into()),
        name: None,
    })
    .await?;
    t.emit(EventKind::TextMessageChunk {
        message_id: None,
        role: None,
        delta: Some("an opener with an id, then continuations.".into()),
        name: None,
    })
    .await?;

    // State: a snapshot that keeps the client's keys, then a delta.
    let mut state = t.ctx.input.state.as_object().cloned().unwrap_or_default();
    state.insert("tour".into(), json!({"progress": 0}));
    t.emit(EventKind::StateSnapshot {
        snapshot: Value::Object(state),
    })
    .await?;
    t.emit(EventKind::StateDelta {
        delta: vec![json!({"op": "replace", "path": "/tour/progress", "value": 50})],
    })
    .await?;

    // Activity, passthrough and custom events.
    let activity = t.ctx.new_id("activity");
    let content = json!({"title": "Touring the event types", "progress": 0});
    t.emit(EventKind::ActivitySnapshot {
        message_id: activity.clone(),
        activity_type: "BACKGROUND_TASK".into(),
        content: content.as_object().cloned().unwrap_or_default(),
        replace: None,
    })
    .await?;
    t.emit(EventKind::ActivityDelta {
        message_id: activity,
        activity_type: "BACKGROUND_TASK".into(),
        patch: vec![json!({"op": "replace", "path": "/progress", "value": 100})],
    })
    .await?;
    t.emit(EventKind::Raw {
        event: json!({"provider": "demo", "kind": "heartbeat", "seq": 1}),
        source: Some("demo".into()),
    })
    .await?;
    t.emit(EventKind::Custom {
        name: "demo_tour".into(),
        value: json!({"stage": "custom"}),
    })
    .await?;

    // Reasoning: a span holding an explicit message (with an encrypted value) and a chunked one.
    let span = t.ctx.new_id("reasoning");
    t.emit(EventKind::ReasoningStart {
        message_id: span.clone(),
    })
    .await?;
    let thought = t.ctx.new_id("reasoning-msg");
    t.emit(EventKind::ReasoningMessageStart {
        message_id: thought.clone(),
        role: ReasoningRole::Reasoning,
    })
    .await?;
    t.emit(EventKind::ReasoningMessageContent {
        message_id: thought.clone(),
        delta: "Which events are left? Reasoning, then subagents.".into(),
    })
    .await?;
    t.emit(EventKind::ReasoningMessageEnd {
        message_id: thought.clone(),
    })
    .await?;
    let opaque = base64(format!("demo-tour:{}", t.ctx.run_id()).as_bytes());
    t.emit(EventKind::ReasoningEncryptedValue {
        subtype: EncryptedSubtype::Message,
        entity_id: thought,
        encrypted_value: opaque,
        encrypted_value_type: Some("demo-opaque".into()),
    })
    .await?;
    let chunked_thought = t.ctx.new_id("reasoning-msg");
    t.emit(EventKind::ReasoningMessageChunk {
        message_id: Some(chunked_thought),
        delta: Some("Chunked reasoning: ".into()),
    })
    .await?;
    t.emit(EventKind::ReasoningMessageChunk {
        message_id: None,
        delta: Some("continued without an id.".into()),
    })
    .await?;
    // Closes the chunked reasoning message first, then the span.
    t.emit(EventKind::ReasoningEnd { message_id: span }).await?;

    // Subagents: one finishes, one fails (which ends its invocation, not the run).
    for (name, says, fails) in [
        (
            "researcher",
            "The researcher reports: all event types accounted for.",
            false,
        ),
        ("critic", "The critic starts reviewing…", true),
    ] {
        let id = t.ctx.new_id("subagent");
        t.emit(EventKind::SubagentStarted {
            subagent_run_id: id.clone(),
            name: name.into(),
            description: Some(format!("The tour's {name}")),
            parent_subagent_run_id: None,
            parent_tool_call_id: None,
            parent_message_id: Some(intro.clone()),
        })
        .await?;
        t.text(says, Some(&id)).await?;
        t.emit(if fails {
            EventKind::SubagentError {
                subagent_run_id: id,
                message: "the critic gave up (on purpose: this is the demo's SUBAGENT_ERROR)"
                    .into(),
                code: Some("DEMO_SUBAGENT_FAILED".into()),
            }
        } else {
            EventKind::SubagentFinished {
                subagent_run_id: id,
                result: Some(json!({"verdict": "complete"})),
                outcome: Some(crate::protocol::types::SubagentOutcome::Success),
            }
        })
        .await?;
    }

    // The thread as a client now holds it; activity messages are client-only, so they are left
    // out (and a reconciling client keeps its own).
    let messages: Vec<Message> = t
        .view
        .messages
        .iter()
        .filter(|m| !matches!(m, Message::Activity(_)))
        .cloned()
        .collect();
    t.emit(EventKind::MessagesSnapshot { messages }).await?;
    t.step("tour", false).await?;
    t.text("That was every type except RUN_ERROR, which a successful run cannot contain; RUN_STARTED and RUN_FINISHED are the runtime's.", None)
        .await?;
    Ok(RunEnd::success())
}

async fn result_for(t: &mut Tour<'_>, call: &str, content: Value) -> Result<(), AgentError> {
    let message_id = t.ctx.new_id("tool");
    t.emit(EventKind::ToolCallResult {
        message_id,
        tool_call_id: call.into(),
        content: Content::Text(content.to_string()),
        role: None,
    })
    .await
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::protocol::event::EVENT_TYPES;
    use crate::protocol::pipeline::Pipeline;
    use crate::server::runs::Runs;

    use super::super::testing::{assert_clean, input_for, run_input, settings, types};

    #[tokio::test]
    async fn full_emits_every_type_but_run_error_and_its_snapshot_changes_nothing() {
        let mut input = input_for("full");
        input.state = serde_json::json!({"mine": true});
        let (events, p) = run_input(&Runs::new(), input.clone(), settings()).await;
        assert_clean("full", &events, &p);
        let seen: BTreeSet<&str> = types(&events).into_iter().collect();
        let wanted: BTreeSet<&str> = EVENT_TYPES
            .iter()
            .copied()
            .filter(|t| *t != "RUN_ERROR")
            .collect();
        let missing: Vec<_> = wanted.difference(&seen).collect();
        assert!(missing.is_empty(), "missing {missing:?}");
        assert_eq!(seen.len(), 30);
        assert_eq!(p.conversation.state["mine"], true);
        assert_eq!(p.conversation.state["tour"]["progress"], 50);

        // Replay: MESSAGES_SNAPSHOT must agree with what the client built, message for message.
        let mut replay = Pipeline::for_input(&input, Default::default());
        for e in &events {
            let before = replay.conversation.messages_json();
            replay.push_value(None, e.to_value());
            if e.type_name() == "MESSAGES_SNAPSHOT" {
                assert_eq!(replay.conversation.messages_json(), before);
            }
        }
        let roles: Vec<_> = p
            .conversation
            .messages
            .iter()
            .map(|m| m.role().as_str())
            .collect();
        for role in ["user", "assistant", "tool", "reasoning", "activity"] {
            assert!(roles.contains(&role), "{role} missing from {roles:?}");
        }
        let subagents = &p.conversation.subagents;
        assert_eq!(subagents.len(), 2);
    }
}

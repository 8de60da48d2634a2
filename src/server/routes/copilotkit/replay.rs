//! CopilotKit's `connect`: a thread restated for a client that (re)attaches to it. The history
//! goes as snapshots inside a run of its own (`RUN_STARTED`, `MESSAGES_SNAPSHOT`,
//! `STATE_SNAPSHOT`, `RUN_FINISHED`), as AG-UI allows a producer to replay history. With a run
//! in progress the snapshots sit inside that run instead, followed by what is still open in it
//! (steps, tool calls whose arguments are streaming) and then its live events.
//!
//! CopilotKit's client verifies the stream as AG-UI 0.0.48 does: the first event is
//! `RUN_STARTED`, a text message's deltas follow its `TEXT_MESSAGE_START`, a tool call's args
//! its `TOOL_CALL_START`. So a text message that was open when the client joined gets its
//! `TEXT_MESSAGE_START` again before its next delta (the client reuses a message it already
//! has), and an open tool call leaves the snapshot to be restated with its arguments so far
//! (the client would otherwise hold it twice).

use std::collections::{BTreeSet, HashSet};
use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt;

use crate::protocol::compat::{downgrade_event, event_json_for, Version};
use crate::protocol::event::{Event, EventKind};
use crate::protocol::reduce::Conversation;
use crate::protocol::sse;
use crate::protocol::types::{Message, ToolCall, PROTOCOL_VERSION};
use crate::server::runs::{Frame, Joined, ObserverSlot, RunReader};
use crate::server::stream::event_stream;

/// How many already-waiting live events go into one write.
const BATCH: usize = 64;

/// The events that restate `joined` before any live event (downgraded for `peer`, as their
/// wire JSON), and the live run's reader if there is one.
pub fn restate(
    thread_id: &str,
    joined: Joined,
    peer: Version,
    replay_run_id: String,
) -> (Vec<String>, Option<RunReader>) {
    let Joined { conversation, live } = joined;
    let mut events = Vec::new();
    let run_id = match &live {
        Some((run_id, _)) => run_id.clone(),
        None => replay_run_id,
    };
    events.push(EventKind::RunStarted {
        thread_id: thread_id.to_string(),
        run_id: run_id.clone(),
        parent_run_id: None,
        input: None,
        // Dropped for a pre-1.0 peer by the downgrade.
        protocol_version: Some(PROTOCOL_VERSION.into()),
    });
    let (messages, open_calls) = split_open_calls(&conversation);
    events.push(EventKind::MessagesSnapshot { messages });
    events.push(EventKind::StateSnapshot {
        snapshot: conversation.state.clone(),
    });
    match live {
        Some((_, reader)) => {
            for (_, step) in &conversation.active_steps {
                events.push(EventKind::StepStarted {
                    step_name: step.clone(),
                });
            }
            for (parent, call) in open_calls {
                events.push(EventKind::ToolCallStart {
                    tool_call_id: call.id.clone(),
                    tool_call_name: call.function.name,
                    parent_message_id: Some(parent),
                });
                if !call.function.arguments.is_empty() {
                    events.push(EventKind::ToolCallArgs {
                        tool_call_id: call.id,
                        delta: call.function.arguments,
                    });
                }
            }
            let events = downgrade_all(events, peer);
            (events, Some(reader))
        }
        None => {
            events.push(EventKind::RunFinished {
                thread_id: thread_id.to_string(),
                run_id,
                result: None,
                outcome: None,
                usage: None,
            });
            (downgrade_all(events, peer), None)
        }
    }
}

fn downgrade_all(kinds: Vec<EventKind>, peer: Version) -> Vec<String> {
    kinds
        .into_iter()
        .filter_map(|k| downgrade_event(Event::from(k), peer))
        .map(|e| event_json_for(&e, peer))
        .collect()
}

/// The conversation's messages without the tool calls whose arguments are still streaming, and
/// those calls with the id of the message that holds them.
fn split_open_calls(conv: &Conversation) -> (Vec<Message>, Vec<(String, ToolCall)>) {
    let open: &BTreeSet<String> = &conv.open_tool_calls;
    let mut messages = conv.messages.clone();
    let mut taken = Vec::new();
    if open.is_empty() {
        return (messages, taken);
    }
    for m in &mut messages {
        if let Message::Assistant(a) = m {
            if let Some(calls) = &mut a.tool_calls {
                let (keep, out): (Vec<_>, Vec<_>) =
                    calls.drain(..).partition(|c| !open.contains(&c.id));
                *calls = keep;
                taken.extend(out.into_iter().map(|c| (a.id.clone(), c)));
            }
        }
    }
    (messages, taken)
}

/// What the live part of a joined stream passes on: the live run's `RUN_STARTED` is already
/// restated; a text message's first event here gets its `TEXT_MESSAGE_START` if it lacks one.
#[derive(Default)]
struct LiveFilter {
    /// Text messages whose start this stream has carried (one run's messages at most).
    started: HashSet<String>,
}

impl LiveFilter {
    fn encode(&mut self, frame: &Frame, out: &mut String) {
        let id = (frame.seq > 0).then(|| frame.seq.to_string());
        match &frame.event().kind {
            EventKind::RunStarted { .. } => return,
            EventKind::TextMessageStart { message_id, .. } => {
                self.started.insert(message_id.clone());
            }
            EventKind::TextMessageContent { message_id, .. }
            | EventKind::TextMessageEnd { message_id }
                if !self.started.contains(message_id) =>
            {
                self.started.insert(message_id.clone());
                let start = Event::from(EventKind::TextMessageStart {
                    message_id: message_id.clone(),
                    role: None,
                    name: None,
                });
                out.push_str(&sse::encode_event(&start.to_json(), None, None));
            }
            _ => {}
        }
        out.push_str(&sse::encode_event(&frame.json(), id.as_deref(), None));
    }
}

/// The SSE response of a `connect`: `prefix`, then the live run's events (keep-alive comments
/// while it is idle) until its terminal event; the live part holds its observer slot until it
/// ends or the client goes. Without `live` the stream ends after `prefix` (an empty prefix: an
/// empty stream, the runtime's answer for a thread it does not know).
pub fn connect_response(
    prefix: Vec<String>,
    live: Option<(RunReader, ObserverSlot)>,
    keep_alive: Duration,
) -> Response {
    let mut head = String::new();
    for json in &prefix {
        head.push_str(&sse::encode_event(json, None, None));
    }
    let head =
        futures::stream::iter((!head.is_empty()).then(|| Ok::<_, Infallible>(Bytes::from(head))));
    let tail = futures::stream::unfold(
        live.map(|(r, slot)| (r, LiveFilter::default(), slot)),
        move |state| async move {
            let (mut reader, mut filter, slot) = state?;
            loop {
                match tokio::time::timeout(keep_alive, reader.next()).await {
                    Ok(Some(frame)) => {
                        let mut out = String::new();
                        filter.encode(&frame, &mut out);
                        // What is already waiting goes in the same write, within a bound.
                        for _ in 1..BATCH {
                            let Some(frame) = reader.ready() else { break };
                            filter.encode(&frame, &mut out);
                        }
                        if !out.is_empty() {
                            return Some((Ok(Bytes::from(out)), Some((reader, filter, slot))));
                        }
                    }
                    Ok(None) => return None,
                    Err(_) => {
                        let chunk = Bytes::from_static(sse::KEEP_ALIVE.as_bytes());
                        return Some((Ok(chunk), Some((reader, filter, slot))));
                    }
                }
            }
        },
    );
    event_stream(Body::from_stream(head.chain(tail)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::types::TextRole;

    #[test]
    fn an_open_tool_call_leaves_the_snapshot_with_its_arguments_so_far() {
        let mut conv = Conversation::default();
        let kinds = [
            EventKind::TextMessageStart {
                message_id: "m1".into(),
                role: Some(TextRole::Assistant),
                name: None,
            },
            EventKind::TextMessageContent {
                message_id: "m1".into(),
                delta: "hi".into(),
            },
            EventKind::TextMessageEnd {
                message_id: "m1".into(),
            },
            EventKind::ToolCallStart {
                tool_call_id: "done".into(),
                tool_call_name: "f".into(),
                parent_message_id: Some("m1".into()),
            },
            EventKind::ToolCallEnd {
                tool_call_id: "done".into(),
            },
            EventKind::ToolCallStart {
                tool_call_id: "open".into(),
                tool_call_name: "g".into(),
                parent_message_id: Some("m1".into()),
            },
            EventKind::ToolCallArgs {
                tool_call_id: "open".into(),
                delta: "{\"a\":".into(),
            },
        ];
        for k in kinds {
            conv.apply(&Event::from(k));
        }
        let (messages, open) = split_open_calls(&conv);
        let Message::Assistant(a) = &messages[0] else {
            panic!("{messages:?}")
        };
        let ids: Vec<&str> = a
            .tool_calls
            .iter()
            .flatten()
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(ids, ["done"]);
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].0, "m1");
        assert_eq!(open[0].1.function.name, "g");
        assert_eq!(open[0].1.function.arguments, "{\"a\":");
        // The conversation itself is untouched.
        assert_eq!(conv.open_tool_calls.len(), 1);
    }
}

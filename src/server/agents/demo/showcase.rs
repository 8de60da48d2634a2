//! Showcase scenarios, one protocol feature each: reasoning (`reasoning`), activity messages
//! (`activities`), subagents (`subagents`) and render hints (`render_hints`).

use serde_json::{json, Value};

use crate::protocol::dialect::RENDER_HINT_CUSTOM_NAME;
use crate::protocol::event::{EncryptedSubtype, Event, EventKind};
use crate::protocol::types::{ReasoningRole, SubagentOutcome, TextRole};
use crate::server::agents::{AgentError, RunContext, RunEnd};

use super::text::stream_text;
use super::text::tokens;
use super::tools::pause;

/// `kind` attributed to subagent run `lane` (None: the run itself).
pub(super) fn in_lane(kind: EventKind, lane: Option<&str>) -> Event {
    let mut e = Event::from(kind);
    e.subagent_run_id = lane.map(str::to_string);
    e
}

/// [`stream_text`] for a subagent: every event of the message carries its `subagentRunId`.
pub(super) async fn stream_text_in(
    ctx: &mut RunContext,
    text: &str,
    lane: Option<&str>,
) -> Result<String, AgentError> {
    let id = ctx.new_id("msg");
    let start = EventKind::TextMessageStart {
        message_id: id.clone(),
        role: Some(TextRole::Assistant),
        name: None,
    };
    ctx.emit(in_lane(start, lane)).await?;
    for t in tokens(text) {
        let content = EventKind::TextMessageContent {
            message_id: id.clone(),
            delta: t.into(),
        };
        ctx.emit(in_lane(content, lane)).await?;
        ctx.sleep(ctx.settings.token_delay).await?;
    }
    let end = EventKind::TextMessageEnd {
        message_id: id.clone(),
    };
    ctx.emit(in_lane(end, lane)).await?;
    Ok(id)
}

/// Standard base64 (with padding): the demo's "encrypted" values only need to look opaque.
pub(super) fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            out.push(if i <= chunk.len() {
                ABC[(n >> shift) as usize & 63] as char
            } else {
                '='
            });
        }
    }
    out
}

const THINKING: &str = "The demo has no model, so it reasons about its favourite puzzle: is 9.11 larger than 9.9? Both have the whole part 9. Compare the fractions digit by digit: 0.11 against 0.9, that is 0.11 against 0.90. The first decimal decides: 1 < 9. So 9.9 is larger, even though 11 > 9 when read as whole numbers — that is the trap.";

pub async fn reasoning(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let span = ctx.new_id("reasoning");
    ctx.emit(EventKind::ReasoningStart {
        message_id: span.clone(),
    })
    .await?;
    let msg = ctx.new_id("reasoning-msg");
    ctx.emit(EventKind::ReasoningMessageStart {
        message_id: msg.clone(),
        role: ReasoningRole::Reasoning,
    })
    .await?;
    for t in tokens(THINKING) {
        ctx.emit(EventKind::ReasoningMessageContent {
            message_id: msg.clone(),
            delta: t.into(),
        })
        .await?;
        ctx.sleep(ctx.settings.token_delay).await?;
    }
    ctx.emit(EventKind::ReasoningMessageEnd {
        message_id: msg.clone(),
    })
    .await?;
    // What a provider returns so the next turn can resume its hidden reasoning state.
    let opaque =
        base64(format!("demo-reasoning-state:{}:{}", ctx.run_id(), THINKING.len()).as_bytes());
    ctx.emit(EventKind::ReasoningEncryptedValue {
        subtype: EncryptedSubtype::Message,
        entity_id: msg,
        encrypted_value: opaque,
        encrypted_value_type: Some("demo-opaque".into()),
    })
    .await?;
    ctx.emit(EventKind::ReasoningEnd { message_id: span })
        .await?;
    stream_text(
        ctx,
        "**9.9 is larger than 9.11.** Both start with 9; after the point, 0.9 = 0.90 beats 0.11.",
    )
    .await?;
    Ok(RunEnd::success())
}

const INDEX_STEPS: [&str; 5] = [
    "Scan files",
    "Parse sources",
    "Build the symbol index",
    "Embed documents",
    "Write the index",
];

const SEARCH_RESULTS: [(&str, &str); 3] = [
    (
        "Events — ordering rules",
        "https://docs.ag-ui.com/concepts/events",
    ),
    (
        "Serialization and streams",
        "https://docs.ag-ui.com/concepts/serialization",
    ),
    (
        "Run lifecycle",
        "https://docs.ag-ui.com/concepts/architecture",
    ),
];

pub async fn activities(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let task = ctx.new_id("activity");
    let search = ctx.new_id("activity");
    let steps: Vec<Value> = INDEX_STEPS
        .iter()
        .map(|s| json!({"name": s, "status": "pending"}))
        .collect();
    let snapshot = |id: &str, ty: &str, content: Value| EventKind::ActivitySnapshot {
        message_id: id.into(),
        activity_type: ty.into(),
        content: content.as_object().cloned().unwrap_or_default(),
        replace: None,
    };
    let task_content =
        json!({"title": "Indexing repository", "progress": 0, "status": "running", "steps": steps});
    ctx.emit(snapshot(&task, "BACKGROUND_TASK", task_content))
        .await?;
    let search_content =
        json!({"query": "ag-ui event ordering", "status": "searching", "results": []});
    ctx.emit(snapshot(&search, "SEARCH", search_content))
        .await?;
    let patch = |id: &str, ty: &str, ops: Value| EventKind::ActivityDelta {
        message_id: id.into(),
        activity_type: ty.into(),
        patch: ops.as_array().cloned().unwrap_or_default(),
    };
    // The two activities advance interleaved, as concurrent background work does.
    for k in 0..INDEX_STEPS.len() {
        let ops = json!([
            {"op": "replace", "path": format!("/steps/{k}/status"), "value": "done"},
            {"op": "replace", "path": "/progress", "value": (k + 1) * 100 / INDEX_STEPS.len()}
        ]);
        ctx.emit(patch(&task, "BACKGROUND_TASK", ops)).await?;
        pause(ctx).await?;
        if let Some((title, url)) = SEARCH_RESULTS.get(k) {
            let ops =
                json!([{"op": "add", "path": "/results/-", "value": {"title": title, "url": url}}]);
            ctx.emit(patch(&search, "SEARCH", ops)).await?;
            pause(ctx).await?;
        }
    }
    let done = json!([{"op": "replace", "path": "/status", "value": "done"}]);
    ctx.emit(patch(&search, "SEARCH", done.clone())).await?;
    ctx.emit(patch(&task, "BACKGROUND_TASK", done)).await?;
    stream_text(ctx, "The repository is indexed (5 of 5 steps) and the search found 3 pages about event ordering. Both activities stay in the conversation as cards; they are client-side only and never sent back to the agent.").await?;
    Ok(RunEnd::success())
}

/// (name, description, step, what it says, its result).
const SUBAGENTS: [(&str, &str, &str, &str, &str); 2] = [
    (
        "researcher",
        "Finds facts and sources",
        "search",
        "I looked up AG-UI: an open, event-based protocol between agents and apps, 31 event types in 1.1, streamed over SSE.",
        "AG-UI 1.1: 31 event types over SSE",
    ),
    (
        "writer",
        "Turns notes into prose",
        "draft",
        "Draft: *AG-UI lets any agent talk to any app: the agent streams events, the app renders them, and people stay in the loop.*",
        "one-sentence pitch",
    ),
];

pub async fn subagents(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let intro = stream_text(
        ctx,
        "I will delegate: a researcher gathers facts, then a writer turns them into a pitch.",
    )
    .await?;
    for (name, description, step, says, result) in SUBAGENTS {
        let id = ctx.new_id("subagent");
        ctx.emit(EventKind::SubagentStarted {
            subagent_run_id: id.clone(),
            name: name.into(),
            description: Some(description.into()),
            parent_subagent_run_id: None,
            parent_tool_call_id: None,
            parent_message_id: Some(intro.clone()),
        })
        .await?;
        let lane = Some(id.as_str());
        let step_name = step.to_string();
        ctx.emit(in_lane(
            EventKind::StepStarted {
                step_name: step_name.clone(),
            },
            lane,
        ))
        .await?;
        pause(ctx).await?;
        stream_text_in(ctx, says, lane).await?;
        ctx.emit(in_lane(EventKind::StepFinished { step_name }, lane))
            .await?;
        ctx.emit(EventKind::SubagentFinished {
            subagent_run_id: id,
            result: Some(json!({"summary": result})),
            outcome: Some(SubagentOutcome::Success),
        })
        .await?;
    }
    stream_text(ctx, "Both helpers finished: the researcher's facts fed the writer's pitch above. Each message is attributed to the subagent that wrote it.").await?;
    Ok(RunEnd::success())
}

/// Render hints are `CUSTOM{name: "ui_render_hint", value: {component, props}}`. The props
/// each component takes (the UI validates them with `crate::ui::render_hints::<component>::parse`
/// and shows invalid ones as JSON; the tests below run these hints through those validators):
///
/// - `chart`: `{"type": "bar" | "line", "title"?: string, "labels": [string] (1–50),
///   "series": [{"name": string, "values": [number]}] (1–5)}`; each series has one finite value
///   per label.
/// - `table`: `{"title"?: string, "columns": [string] (non-empty), "rows": [[scalar]]}`; each row
///   has one scalar cell per column.
/// - `card`: `{"title": string, "body"?: string (plain text, line breaks kept),
///   "fields"?: [{"label": string, "value": scalar}], "actions"?: [string]}`; actions are inert
///   chips.
pub async fn render_hints(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let hints = [
        (
            "Here is last week's traffic as a chart:",
            json!({"component": "chart", "props": {
                "type": "bar",
                "title": "Visitors per day",
                "labels": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
                "series": [
                    {"name": "This week", "values": [120, 135, 160, 150, 180, 90, 70]},
                    {"name": "Last week", "values": [100, 110, 130, 145, 150, 95, 60]}
                ]
            }}),
        ),
        (
            "The top pages, as a table:",
            json!({"component": "table", "props": {
                "title": "Top pages",
                "columns": ["Page", "Views", "Avg. time (s)"],
                "rows": [["/", 540, 32], ["/docs", 310, 95], ["/pricing", 120, 41]]
            }}),
        ),
        (
            "And a summary card:",
            json!({"component": "card", "props": {
                "title": "Weekly summary",
                "body": "Traffic is up 12 % on last week.\n/docs holds readers longest.",
                "fields": [
                    {"label": "Visitors", "value": 905},
                    {"label": "Change", "value": "+12 %"}
                ],
                "actions": ["Share", "Export CSV"]
            }}),
        ),
    ];
    for (text, value) in hints {
        stream_text(ctx, text).await?;
        ctx.emit(EventKind::Custom {
            name: RENDER_HINT_CUSTOM_NAME.into(),
            value,
        })
        .await?;
        pause(ctx).await?;
    }
    stream_text(ctx, "Each component came as a `CUSTOM` event named `ui_render_hint`; an app without that component shows its props as JSON.").await?;
    Ok(RunEnd::success())
}

#[cfg(test)]
mod tests;

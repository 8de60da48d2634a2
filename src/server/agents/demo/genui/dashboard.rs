//! `a2ui_dynamic`: a live A2UI dashboard. One snapshot creates the surface; every tick is an
//! `ACTIVITY_DELTA` that appends v0.9 messages to the activity's `a2ui_operations` (new metric
//! values, a longer event list, once a new component), as a renderer that replays the list
//! expects. The ticks are a fixed table, so the list stays short and the run deterministic.

use serde_json::{json, Value};

use crate::server::agents::{AgentError, RunContext, RunEnd};

use super::super::text::stream_text;
use super::super::tools::pause;
use super::a2ui::{building, op, surface_ops, A2UI_ACTIVITY};
use super::{delta, snapshot};

/// (requests per minute, p95 latency in ms, error rate in ‰, what happened): one row a tick.
pub(super) const TICKS: [(u32, u32, u32, &str); 6] = [
    (1180, 84, 2, "Traffic warming up"),
    (1320, 91, 3, "Cache hit rate 94 %"),
    (1610, 142, 19, "Error rate spike on /checkout"),
    (1540, 120, 8, "Rolled back deploy 4f2c"),
    (1490, 88, 2, "Error rate back to normal"),
    (1450, 86, 1, "Steady state"),
];
/// The tick whose error rate adds the alert component.
const ALERT_TICK: usize = 2;

fn metrics(requests: u32, p95: u32, errors: u32) -> Value {
    json!({
        "requests": format!("{requests} req/min"),
        "latency": format!("{p95} ms p95"),
        "errors": format!("{}.{} %", errors / 10, errors % 10),
    })
}

fn components() -> Value {
    let metric = |id: &str, label: &str, path: &str| {
        [
            json!({"id": id, "component": "Column", "children": [format!("{id}_label"), format!("{id}_value")], "weight": 1}),
            json!({"id": format!("{id}_label"), "component": "Text", "text": label, "variant": "caption"}),
            json!({"id": format!("{id}_value"), "component": "Text", "text": {"path": path}, "variant": "h3"}),
        ]
    };
    let mut list = vec![
        json!({"id": "root", "component": "Card", "child": "board"}),
        json!({"id": "board", "component": "Column", "children": ["title", "metrics", "events_title", "events", "status"]}),
        json!({"id": "title", "component": "Text", "text": "Checkout service — live", "variant": "h2"}),
        json!({"id": "metrics", "component": "Row", "children": ["requests", "latency", "errors"], "justify": "spaceBetween"}),
        json!({"id": "events_title", "component": "Text", "text": "Events", "variant": "h4"}),
        // One Text per item of /events; inside the template, paths are relative to the item.
        json!({"id": "events", "component": "List", "children": {"componentId": "event_item", "path": "/events"}}),
        json!({"id": "event_item", "component": "Text", "text": {"path": "text"}}),
        json!({"id": "status", "component": "Text", "text": {"path": "/status"}, "variant": "caption"}),
    ];
    list.extend(metric("requests", "Requests", "/metrics/requests"));
    list.extend(metric("latency", "Latency", "/metrics/latency"));
    list.extend(metric("errors", "Errors", "/metrics/errors"));
    Value::Array(list)
}

/// `add` of each message at the end of `/a2ui_operations`.
fn append(ops: Vec<Value>) -> Value {
    Value::Array(
        ops.into_iter()
            .map(|v| json!({"op": "add", "path": "/a2ui_operations/-", "value": v}))
            .collect(),
    )
}

pub async fn a2ui_dynamic(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    stream_text(ctx, "A live dashboard as an A2UI surface: I create it once, then stream updates to its data model (and once to its components) as activity deltas.").await?;
    let (surface, id) = building(ctx, "dashboard-").await?;
    let mut events = vec![json!({"text": "Dashboard started"})];
    let data = json!({
        "metrics": metrics(0, 0, 0),
        "events": events,
        "status": format!("Live — tick 0 of {}", TICKS.len()),
    });
    let content = surface_ops(&surface, components(), data);
    ctx.emit(snapshot(&id, A2UI_ACTIVITY, content, Some(true)))
        .await?;
    let data_op = |path: &str, value: Value| {
        op(
            "updateDataModel",
            json!({"surfaceId": surface, "path": path, "value": value}),
        )
    };
    for (tick, (requests, p95, errors, what)) in TICKS.into_iter().enumerate() {
        pause(ctx).await?;
        pause(ctx).await?;
        events.push(json!({"text": format!("14:{:02} {what}", tick * 5)}));
        let mut ops = vec![
            data_op("/metrics", metrics(requests, p95, errors)),
            data_op("/events", Value::Array(events.clone())),
            data_op(
                "/status",
                json!(format!("Live — tick {} of {}", tick + 1, TICKS.len())),
            ),
        ];
        if tick == ALERT_TICK {
            // A component that was not there before: the board gains an alert line.
            ops.push(op("updateComponents", json!({"surfaceId": surface, "components": [
                {"id": "board", "component": "Column", "children": ["title", "alert", "metrics", "events_title", "events", "status"]},
                {"id": "alert", "component": "Text", "text": "⚠ Error rate above 1 % — investigating", "variant": "h4"}
            ]})));
        }
        ctx.emit(delta(&id, A2UI_ACTIVITY, append(ops))).await?;
    }
    let done = data_op(
        "/status",
        json!(format!("Final — {} ticks, the run is over", TICKS.len())),
    );
    ctx.emit(delta(&id, A2UI_ACTIVITY, append(vec![done])))
        .await?;
    stream_text(
        ctx,
        "The error spike came and went: the rollback brought the error rate back under 0.2 %.",
    )
    .await?;
    Ok(RunEnd::success())
}

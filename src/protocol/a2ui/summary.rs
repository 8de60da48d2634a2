//! A short account of the A2UI surfaces in a conversation, one entry per surface of each
//! `a2ui-surface` activity (or its lifecycle status): what `inspect` prints so that a person
//! sees at a glance what an agent's surfaces hold and what is wrong with them.

use serde_json::{json, Value};

use super::content::{surface_content, SurfaceContent, ACTIVITY_TYPE};
use super::processor::{Processor, ProcessorOptions};
use crate::protocol::types::Message;

/// One entry per surface: `{messageId, surfaceId, catalogId, components, dataModelBytes,
/// errors}`; a status activity gives `{messageId, status}`. Errors are the messages the
/// processor refused and the surface's validation issues, as text.
pub fn summarize(messages: &[Message]) -> Vec<Value> {
    let mut out = Vec::new();
    for m in messages {
        let Message::Activity(a) = m else { continue };
        if a.activity_type != ACTIVITY_TYPE {
            continue;
        }
        match surface_content(&a.content) {
            SurfaceContent::Status { status, .. } => {
                out.push(json!({ "messageId": a.id, "status": status }))
            }
            SurfaceContent::Unknown => out.push(json!({
                "messageId": a.id,
                "errors": ["the content has neither a2ui_operations nor a status"],
            })),
            SurfaceContent::Operations(ops) => {
                let mut p = Processor::new(ProcessorOptions::RENDERER);
                let failed: Vec<String> = p
                    .process_each(ops)
                    .into_iter()
                    .map(|(i, e)| format!("message {i}: {e}"))
                    .collect();
                if p.surfaces().is_empty() {
                    out.push(json!({ "messageId": a.id, "surfaces": 0, "errors": failed }));
                }
                for s in p.surfaces() {
                    let mut errors = failed.clone();
                    errors.extend(s.issues(&p.options.limits).into_iter().map(
                        |i| match i.component {
                            Some(c) => format!("{c}: {}", i.message),
                            None => i.message,
                        },
                    ));
                    let bytes = serde_json::to_string(&s.data_model).map_or(0, |t| t.len());
                    out.push(json!({
                        "messageId": a.id,
                        "surfaceId": s.id,
                        "catalogId": s.catalog_id,
                        "components": s.components.len(),
                        "dataModelBytes": bytes,
                        "errors": errors,
                    }));
                }
            }
        }
    }
    out
}

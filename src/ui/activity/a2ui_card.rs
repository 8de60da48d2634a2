//! An A2UI surface in the transcript, tied to the session: its user actions start the agent's
//! next run (`forwardedProps.a2uiAction.userAction`, what `@ag-ui/a2ui-middleware` reads), and
//! what was wrong with it can be reported back to the agent as A2UI v0.9 client `error`
//! messages.

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::client::session::SendInput;
use crate::protocol::genui::A2UI_ACTION;
use crate::protocol::types::Message as Msg;
use crate::ui::a2ui::state::{process, Processed};

/// At most this many problems go back in one report.
pub const MAX_REPORTED: usize = 20;

/// The v0.9 client-to-server `error` messages for what is wrong with a surface: a
/// `VALIDATION_FAILED` per issue of a surface, a generic error per refused message.
pub fn error_reports(p: &Processed, fallback_surface: &str) -> Vec<Value> {
    let issues = p.surfaces.iter().flat_map(|s| {
        s.issues.iter().map(move |i| {
            let path = match &i.component {
                Some(c) => format!("/components/{}", c.replace('~', "~0").replace('/', "~1")),
                None => "/".to_string(),
            };
            json!({"version": "v0.9", "error": {
                "code": "VALIDATION_FAILED", "surfaceId": s.surface.id, "path": path,
                "message": i.message }})
        })
    });
    let refused = p.errors.iter().map(|e| {
        json!({"version": "v0.9", "error": {
            "code": "INVALID_MESSAGE", "surfaceId": fallback_surface, "message": e }})
    });
    issues.chain(refused).take(MAX_REPORTED).collect()
}

/// The user's message that goes with a report (the agent may not read `forwardedProps`).
pub fn report_text(reports: &[Value]) -> String {
    let first = reports
        .first()
        .and_then(|r| r["error"]["message"].as_str())
        .unwrap_or("");
    format!(
        "The A2UI surface you sent could not be shown as sent: {} problem{} (first: {}).",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        first.chars().take(200).collect::<String>()
    )
}

/// An A2UI surface whose actions start the agent's next run with no new message. An action
/// while a run is going waits for it to end, and says so.
#[component]
pub fn A2uiCard(message: Signal<Msg>) -> impl IntoView {
    let agent = use_context::<crate::ui::transcript::TranscriptCtx>().map(|c| c.agent);
    let waiting = RwSignal::new(None::<Value>);
    let send = move |action: Value| {
        if let Some(a) = agent {
            a.send.run(SendInput::action(
                crate::protocol::a2ui::action::forwarded_props(action),
            ));
        }
    };
    let on_action = Callback::new(move |action: Value| match agent {
        Some(a) if a.is_running.get_untracked() => waiting.set(Some(action)),
        _ => send(action),
    });
    Effect::new(move |_| {
        let running = agent.is_some_and(|a| a.is_running.get());
        if !running {
            if let Some(action) = waiting.get_untracked() {
                waiting.set(None);
                send(action);
            }
        }
    });
    let reports = Memo::new(move |_| {
        message.with(|m| {
            let fallback = m
                .id()
                .strip_prefix("a2ui-surface-")
                .unwrap_or(m.id())
                .to_string();
            error_reports(&process(m), &fallback)
        })
    });
    let reported = RwSignal::new(false);
    let busy = move || agent.is_none_or(|a| a.is_running.get()) || reported.get();
    let report = move |_| {
        let r = reports.get_untracked();
        if let (Some(a), false) = (agent, r.is_empty()) {
            reported.set(true);
            a.send.run(SendInput {
                text: report_text(&r),
                forwarded_props: Some(json!({ A2UI_ACTION: { "errors": r } })),
                ..Default::default()
            });
        }
    };
    view! {
        <crate::ui::a2ui::A2uiSurface message on_action/>
        {move || waiting.with(Option::is_some).then(|| view! {
            <p class="a2ui-waiting" role="status">"Your action is sent when the current run ends."</p>
        })}
        {move || (!reports.with(Vec::is_empty)).then(|| view! {
            <p class="a2ui-report">
                <button type="button" class="btn small" disabled=busy on:click=report>
                    {move || if reported.get() { "Problems reported" } else { "Report these problems to the agent" }}
                </button>
            </p>
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::a2ui::state::Snap;

    #[test]
    fn reports_are_v09_client_errors() {
        let msg: Msg = serde_json::from_value(json!({
            "id": "a2ui-surface-s1", "role": "activity", "activityType": "a2ui-surface",
            "content": {"a2ui_operations": [
                {"version": "v0.9", "createSurface": {"surfaceId": "s1",
                    "catalogId": "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}},
                {"version": "v0.9", "updateComponents": {"surfaceId": "s1", "components": [
                    {"id": "root", "component": "Column", "children": ["x"]},
                    {"id": "x", "component": "Blink"}]}},
                {"version": "v0.9", "updateDataModel": {"surfaceId": "nope", "value": {}}}
            ]}
        }))
        .unwrap();
        let p = process(&msg);
        let r = error_reports(&p, "s1");
        assert!(!r.is_empty(), "{p:?}");
        assert!(r
            .iter()
            .all(|e| e["version"] == "v0.9" && e["error"]["surfaceId"].is_string()));
        assert!(r
            .iter()
            .any(|e| e["error"]["code"] == "VALIDATION_FAILED"
                && e["error"]["path"] == "/components/x"));
        assert!(r.iter().any(|e| e["error"]["code"] == "INVALID_MESSAGE"));
        assert!(report_text(&r).starts_with("The A2UI surface you sent could not be shown"));
        // Bounded, whatever the surface.
        let mut many = p.clone();
        let snap: &mut Snap = &mut many.surfaces[0];
        let issue = snap.issues[0].clone();
        snap.issues = vec![issue; 500];
        assert_eq!(error_reports(&many, "s1").len(), MAX_REPORTED);
    }
}

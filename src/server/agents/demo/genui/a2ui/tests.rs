//! Tests of the `a2ui` scenario and of the answers to its user action, hostile ones included.

use serde_json::{json, Value};

use super::super::super::testing::{
    assert_clean, assistant_text, next_input, run_prepared, run_scenario, types,
};
use super::super::tests::{activities, check_a2ui_ops};
use super::{check_booking, parse_action, BASIC_CATALOG_ID, SUBMIT_ACTION};
use crate::protocol::event::Event;
use crate::protocol::pipeline::{Pipeline, StreamOutcome};
use crate::wire::RunErrorCode;

fn good_context() -> Value {
    json!({"name": "Ada Lovelace", "email": "ada@example.com", "date": "2026-12-24",
           "guests": 3, "room": ["suite"], "breakfast": false})
}

/// Run the form, then a second run carrying `user_action` (the surface id filled in when the
/// action has none of its own).
async fn submit(mut user_action: Value) -> (String, Vec<Event>, Pipeline) {
    let (_, first) = run_scenario("a2ui", |_| {}).await;
    let surface = activities(&first)[0].content["a2ui_operations"][0]["createSurface"]["surfaceId"]
        .as_str()
        .unwrap()
        .to_string();
    if let Some(a) = user_action.as_object_mut() {
        a.entry("surfaceId").or_insert(json!(surface));
    }
    let mut input = next_input(&first, "a2ui");
    input.forwarded_props = json!({"a2uiAction": {"userAction": user_action}});
    let (events, p) = run_prepared(input).await;
    (surface, events, p)
}

fn action(context: Value) -> Value {
    json!({"name": SUBMIT_ACTION, "sourceComponentId": "submit", "context": context,
           "timestamp": "2026-11-24T16:00:00Z"})
}

#[tokio::test]
async fn a2ui_builds_then_paints_a_form_bound_to_its_data_model() {
    let (events, p) = run_scenario("a2ui", |_| {}).await;
    assert_clean("a2ui", &events, &p);
    let t = types(&events);
    let n = t.len();
    assert_eq!(
        t[n - 3..],
        ["ACTIVITY_SNAPSHOT", "ACTIVITY_SNAPSHOT", "RUN_FINISHED"]
    );
    let snaps: Vec<_> = events[n - 3..n - 1].iter().map(Event::to_value).collect();
    assert_eq!(snaps[0]["content"], json!({"status": "building"}));
    assert_eq!(snaps[0]["messageId"], snaps[1]["messageId"]);
    assert!(snaps
        .iter()
        .all(|s| s["replace"] == true && s["activityType"] == "a2ui-surface"));
    let acts = activities(&p);
    assert_eq!(
        acts.len(),
        1,
        "the surface replaced the building state in place"
    );
    let ops = acts[0].content["a2ui_operations"].as_array().unwrap();
    let kinds: Vec<_> = ops
        .iter()
        .map(|o| {
            o.as_object()
                .unwrap()
                .keys()
                .find(|k| *k != "version")
                .unwrap()
                .clone()
        })
        .collect();
    assert_eq!(
        kinds,
        ["createSurface", "updateComponents", "updateDataModel"]
    );
    let surface = ops[0]["createSurface"]["surfaceId"].as_str().unwrap();
    assert_eq!(acts[0].id, format!("a2ui-surface-{surface}"));
    assert_eq!(ops[0]["createSurface"]["catalogId"], BASIC_CATALOG_ID);
    check_a2ui_ops(ops);
    let components = ops[1]["updateComponents"]["components"].as_array().unwrap();
    let kinds: Vec<_> = components
        .iter()
        .map(|c| c["component"].as_str().unwrap())
        .collect();
    for k in [
        "TextField",
        "CheckBox",
        "ChoicePicker",
        "Slider",
        "DateTimeInput",
        "Button",
    ] {
        assert!(kinds.contains(&k), "{k} missing");
    }
    // Every input's path exists in the data model, and the button's context reads them all.
    let data = &ops[2]["updateDataModel"]["value"];
    let button = components
        .iter()
        .find(|c| c["component"] == "Button")
        .unwrap();
    let ctx = button["action"]["event"]["context"].as_object().unwrap();
    assert_eq!(button["action"]["event"]["name"], SUBMIT_ACTION);
    for c in components
        .iter()
        .filter(|c| c["value"].get("path").is_some())
    {
        let path = c["value"]["path"].as_str().unwrap();
        assert!(data.pointer(path).is_some(), "{path} not in the data model");
        assert!(
            ctx.values().any(|v| v["path"] == path),
            "{path} not in the action context"
        );
    }
}

#[tokio::test]
async fn a_valid_submission_is_confirmed_on_the_same_surface() {
    let (surface, events, p) = submit(action(good_context())).await;
    assert_clean("a2ui action", &events, &p);
    let acts = activities(&p);
    assert_eq!(acts.len(), 1);
    assert_eq!(acts[0].id, format!("a2ui-surface-{surface}"));
    let ops = acts[0].content["a2ui_operations"].as_array().unwrap();
    check_a2ui_ops(ops);
    let data = &ops[2]["updateDataModel"]["value"];
    assert_eq!(data["booking"]["room"], json!(["suite"]));
    assert!(data["summary"]
        .as_str()
        .unwrap()
        .contains("Suite for 3 guest(s)"));
    assert!(data["status"].as_str().unwrap().starts_with("Submitted"));
    let text = assistant_text(&p);
    assert!(
        text.contains("Booked: a **Suite** for **3** guest(s)"),
        "{text}"
    );
    assert!(
        text.contains("Ada Lovelace") && text.contains("ada@example\\.com"),
        "{text}"
    );
}

#[tokio::test]
async fn invalid_fields_bring_the_form_back_with_the_valid_ones() {
    let mut ctx = good_context();
    ctx["guests"] = json!(99);
    ctx["email"] = json!(["not", "a", "string"]);
    ctx["room"] = json!(["penthouse"]);
    let (_, events, p) = submit(action(ctx)).await;
    assert_clean("a2ui invalid", &events, &p);
    let ops = activities(&p)[0].content["a2ui_operations"]
        .as_array()
        .unwrap()
        .clone();
    check_a2ui_ops(&ops);
    let data = &ops[2]["updateDataModel"]["value"];
    assert_eq!(
        data["booking"]["name"], "Ada Lovelace",
        "valid fields are kept"
    );
    assert_eq!(
        data["booking"]["guests"], 2,
        "invalid ones are back at their defaults"
    );
    let status = data["status"].as_str().unwrap();
    for field in ["email:", "guests:", "room:"] {
        assert!(status.contains(field), "{status}");
    }
    assert!(!status.contains("name:"));
    assert!(assistant_text(&p).contains("could not take that booking"));
}

#[tokio::test]
async fn hostile_context_is_bounded_and_escaped() {
    let huge = "x".repeat(2_000_000);
    let mut ctx = good_context();
    ctx["name"] = json!("[click](https://evil.example) <script>alert(1)</script>");
    // Thousands of unknown keys and a huge value are ignored or refused, never echoed whole.
    for i in 0..5_000 {
        ctx[format!("junk{i}")] = json!(i);
    }
    ctx["email"] = json!(format!("{huge}@example.com"));
    let (_, events, p) = submit(action(ctx)).await;
    assert_clean("a2ui hostile", &events, &p);
    let text = assistant_text(&p);
    assert!(text.len() < 2_000, "{} bytes", text.len());
    assert!(text.contains("email:"));
    let data = activities(&p)[0].content["a2ui_operations"][2]["updateDataModel"]["value"].clone();
    assert!(data.to_string().len() < 4_000);

    // A name full of markup comes back inert.
    let mut ctx = good_context();
    ctx["name"] = json!("[click](https://evil.example) <b>x</b>");
    let (_, _, p) = submit(action(ctx)).await;
    let text = assistant_text(&p);
    assert!(
        text.contains("\\[click\\]\\(https://evil\\.example\\) \\<b\\>x\\</b\\>"),
        "{text}"
    );
}

#[tokio::test]
async fn unknown_actions_and_surfaces_are_answered_in_words() {
    let mut other = action(good_context());
    other["name"] = json!("launch_rockets_![img](x)");
    let (_, events, p) = submit(other).await;
    assert_clean("unknown action", &events, &p);
    assert!(activities(&p).is_empty());
    let text = assistant_text(&p);
    assert!(
        text.contains("no handler") && text.contains("launch\\_rockets\\_\\!\\[img\\]\\(x\\)"),
        "{text}"
    );

    let mut elsewhere = action(good_context());
    elsewhere["surfaceId"] = json!("../../etc/passwd");
    let (_, _, p) = submit(elsewhere).await;
    assert!(activities(&p).is_empty());
    assert!(assistant_text(&p).contains("no handler"));
}

#[tokio::test]
async fn malformed_actions_fail_the_run_with_invalid_input() {
    for bad in [
        json!("submit"),
        json!({"surfaceId": "booking-0000000000000000"}),
        json!({"name": 42, "surfaceId": "booking-0000000000000000"}),
        json!({"name": "submit_form", "surfaceId": "booking-0000000000000000", "context": [1, 2]}),
        json!({"name": "x".repeat(10_000), "surfaceId": "booking-0000000000000000"}),
        json!({"name": "submit_form", "surfaceId": "booking-0000000000000000", "timestamp": 5}),
    ] {
        let (_, events, p) = submit(bad.clone()).await;
        assert_eq!(p.outcome(), StreamOutcome::Completed, "{bad}");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.run_errors.len(), 1, "{bad}: {events:#?}");
        assert_eq!(
            p.run_errors[0].1.as_deref(),
            Some(RunErrorCode::InvalidInput.as_str())
        );
        assert!(p.run_errors[0].0.len() < 200, "{}", p.run_errors[0].0);
    }
    assert!(parse_action(&json!({"a2uiAction": []})).is_err());
    assert!(parse_action(&json!({"a2uiAction": {"userAction": null}})).is_err());
}

#[test]
fn booking_checks_each_field() {
    let ok = check_booking(good_context().as_object().unwrap()).unwrap();
    assert_eq!((ok.guests, ok.room, ok.breakfast), (3, "suite", false));
    let mut c = good_context();
    c["date"] = json!("2026-12-24T10:00:00Z");
    c["room"] = json!("double");
    c["guests"] = json!(2.0);
    assert_eq!(
        check_booking(c.as_object().unwrap()).unwrap().date,
        "2026-12-24"
    );
    for (field, bad) in [
        ("date", json!("2026-13-01")),
        ("date", json!("24/12/2026")),
        ("guests", json!(2.5)),
        ("guests", json!("3")),
        ("guests", json!(0)),
        ("email", json!("a@b")),
        ("email", json!("a b@example.com")),
        ("name", json!("   ")),
        ("breakfast", json!("yes")),
        ("room", json!(["single", "double"])),
    ] {
        let mut c = good_context();
        c[field] = bad.clone();
        let (problems, _) = check_booking(c.as_object().unwrap()).expect_err(&bad.to_string());
        assert_eq!(problems.len(), 1, "{field} = {bad}: {problems:?}");
        assert!(problems[0].starts_with(field));
    }
    let (problems, _) = check_booking(&serde_json::Map::new()).unwrap_err();
    assert_eq!(problems.len(), 6);
}

//! Tests of the `genui` module: the shared helpers, the `a2ui_dynamic`, `ogui` and
//! `background_task` scenarios, and a checker of A2UI components against the basic catalog of
//! `../shared/a2ui` that the A2UI tests share.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::super::testing::{assert_clean, assistant_text, run_scenario, types};
use super::background::{MEMORY_ACTIVITY, TASK_ACTIVITY, TASK_STEPS};
use super::dashboard::TICKS;
use super::ogui::{CSS, HTML, JS_EXPRESSIONS, JS_FUNCTIONS, OGUI_ACTIVITY, OGUI_TOOL};
use super::{clip, digest, plain};
use crate::protocol::pipeline::Pipeline;
use crate::protocol::types::{ActivityMessage, Message, ToolCall};

/// The activity messages of a conversation, in order.
pub(super) fn activities(p: &Pipeline) -> Vec<ActivityMessage> {
    p.conversation
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Activity(a) => Some(a.clone()),
            _ => None,
        })
        .collect()
}

/// The run's one tool call and its arguments (results here are plain text, not JSON).
pub(super) fn the_call(p: &Pipeline) -> (ToolCall, Value) {
    let call = p
        .conversation
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Assistant(a) => a.tool_calls.as_ref()?.first().cloned(),
            _ => None,
        })
        .expect("a tool call");
    let args = serde_json::from_str(&call.function.arguments).expect("JSON arguments");
    (call, args)
}

fn catalog_json() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/a2ui/specification/v0_9/catalogs/basic/catalog.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// Every function a value calls (`{"call": name, …}`, at any depth) is one of the catalog's.
fn check_calls(v: &Value, functions: &Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(name)) = o.get("call") {
                assert!(
                    functions.get(name).is_some(),
                    "{name} is not a catalog function"
                );
            }
            o.values().for_each(|x| check_calls(x, functions));
        }
        Value::Array(a) => a.iter().for_each(|x| check_calls(x, functions)),
        _ => {}
    }
}

/// What the basic catalog allows: component name → (allowed properties, required properties).
fn catalog() -> BTreeMap<String, (BTreeSet<String>, Vec<String>)> {
    let catalog = catalog_json();
    let mut out = BTreeMap::new();
    for (name, schema) in catalog["components"].as_object().unwrap() {
        // Common to every component: id, accessibility (ComponentCommon), weight
        // (CatalogComponentCommon), checks (Checkable, harmless to allow on all).
        let mut allowed: BTreeSet<String> = ["id", "accessibility", "weight", "checks"]
            .map(String::from)
            .into();
        let mut required = Vec::new();
        for part in schema["allOf"].as_array().unwrap() {
            if let Some(props) = part["properties"].as_object() {
                allowed.extend(props.keys().cloned());
            }
            if let Some(r) = part["required"].as_array() {
                required.extend(r.iter().map(|v| v.as_str().unwrap().to_string()));
            }
        }
        out.insert(name.clone(), (allowed, required));
    }
    out
}

/// Check every v0.9 message of `ops`: the envelope, known components with their required and
/// only their allowed properties, known functions, a root, and every child id defined on the
/// surface.
pub(super) fn check_a2ui_ops(ops: &[Value]) {
    let catalog = catalog();
    check_calls(&Value::Array(ops.to_vec()), &catalog_json()["functions"]);
    let mut defined = BTreeSet::new();
    let mut referenced = Vec::new();
    for m in ops {
        let o = m.as_object().expect("a message is an object");
        assert_eq!(o["version"], "v0.9", "{m}");
        assert_eq!(o.len(), 2, "version and exactly one operation: {m}");
        let Some(update) = o.get("updateComponents") else {
            continue;
        };
        for c in update["components"].as_array().unwrap() {
            let name = c["component"].as_str().expect("component names its type");
            let (allowed, required) = catalog
                .get(name)
                .unwrap_or_else(|| panic!("{name} is not in the basic catalog"));
            for key in c.as_object().unwrap().keys() {
                assert!(
                    key == "component" || allowed.contains(key),
                    "{name}.{key} is not in the catalog: {c}"
                );
            }
            for key in required {
                assert!(c.get(key).is_some(), "{name} lacks required {key}: {c}");
            }
            defined.insert(c["id"].as_str().unwrap().to_string());
            if let Some(child) = c["child"].as_str() {
                referenced.push(child.to_string());
            }
            match &c["children"] {
                Value::Array(ids) => {
                    referenced.extend(ids.iter().map(|i| i.as_str().unwrap().into()))
                }
                Value::Object(t) => referenced.push(t["componentId"].as_str().unwrap().into()),
                _ => {}
            }
        }
    }
    assert!(defined.contains("root"), "no root component");
    for r in referenced {
        assert!(defined.contains(&r), "child {r} is not defined");
    }
}

#[test]
fn clip_and_plain_bound_and_neutralise_text() {
    assert_eq!(clip("abc", 3), "abc");
    assert_eq!(clip("abcdef", 3), "ab…");
    assert_eq!(clip("a\u{0}b\nc", 10), "abc");
    assert_eq!(clip(&"é".repeat(1_000_000), 5).chars().count(), 5);
    assert_eq!(
        plain("[x](javascript:alert(1))", 100),
        "\\[x\\]\\(javascript:alert\\(1\\)\\)"
    );
    assert_eq!(plain("<img src=x>", 100), "\\<img src=x\\>");
    assert_eq!(digest("a").len(), 16);
    assert_ne!(digest("a"), digest("b"));
}

#[tokio::test]
async fn a2ui_dynamic_ticks_a_live_surface() {
    let (events, p) = run_scenario("a2ui_dynamic", |_| {}).await;
    assert_clean("a2ui_dynamic", &events, &p);
    let t = types(&events);
    let deltas = t.iter().filter(|x| **x == "ACTIVITY_DELTA").count();
    assert_eq!(deltas, TICKS.len() + 1);
    assert_eq!(t.iter().filter(|x| **x == "ACTIVITY_SNAPSHOT").count(), 2);
    let acts = activities(&p);
    assert_eq!(acts.len(), 1);
    let a = &acts[0];
    assert_eq!(a.activity_type, "a2ui-surface");
    assert!(a.id.starts_with("a2ui-surface-dashboard-"), "{}", a.id);
    let ops = a.content["a2ui_operations"].as_array().unwrap();
    // create, components, data; three data updates a tick, one alert; the final status.
    assert_eq!(ops.len(), 3 + TICKS.len() * 3 + 1 + 1);
    check_a2ui_ops(ops);
    let events_list = ops
        .iter()
        .rev()
        .find(|o| o["updateDataModel"]["path"] == "/events")
        .unwrap();
    assert_eq!(
        events_list["updateDataModel"]["value"]
            .as_array()
            .unwrap()
            .len(),
        TICKS.len() + 1
    );
    let last = ops.last().unwrap();
    assert_eq!(last["updateDataModel"]["path"], "/status");
    assert!(last["updateDataModel"]["value"]
        .as_str()
        .unwrap()
        .starts_with("Final"));
}

#[tokio::test]
async fn ogui_streams_the_content_copilotkit_builds_from_generate_sandboxed_ui() {
    let (events, p) = run_scenario("ogui", |_| {}).await;
    assert_clean("ogui", &events, &p);
    let acts = activities(&p);
    assert_eq!(acts.len(), 1);
    let a = &acts[0];
    assert_eq!(a.activity_type, OGUI_ACTIVITY);
    let c = Value::Object(a.content.clone());
    assert_eq!(c["initialHeight"], 220);
    assert_eq!(c["generating"], false);
    let html: Vec<&str> = c["html"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(html.len() > 1, "html streamed in chunks");
    assert_eq!(html.concat(), HTML);
    assert_eq!(c["css"], CSS);
    assert_eq!(c["jsFunctions"], JS_FUNCTIONS);
    assert_eq!(c["jsExpressions"], json!(JS_EXPRESSIONS));
    for flag in [
        "cssComplete",
        "htmlComplete",
        "jsFunctionsComplete",
        "jsExpressionsComplete",
    ] {
        assert_eq!(c[flag], true, "{flag}");
    }
    assert!(JS_FUNCTIONS.contains("__ck_resize") && JS_FUNCTIONS.contains("postMessage"));
    // The tool call carries the same parameters, as valid JSON once streamed; the activity's
    // message id is the middleware's `<toolCallId>-activity`.
    let (call, args) = the_call(&p);
    assert_eq!(call.function.name, OGUI_TOOL);
    assert_eq!(a.id, format!("{}-activity", call.id));
    assert_eq!(args["html"], HTML);
    assert_eq!(args["css"], CSS);
    assert_eq!(args["jsExpressions"], json!(JS_EXPRESSIONS));
    let result = p.conversation.messages.iter().find_map(|m| match m {
        Message::Tool(t) if t.tool_call_id == call.id => Some(t.content.text()),
        _ => None,
    });
    assert_eq!(result.as_deref(), Some("UI generated"));
    // Snapshot first, then only deltas; `generating: false` right before the call ends.
    let t = types(&events);
    let snap = t.iter().position(|x| *x == "ACTIVITY_SNAPSHOT").unwrap();
    assert_eq!(t.iter().filter(|x| **x == "ACTIVITY_SNAPSHOT").count(), 1);
    let end = t.iter().position(|x| *x == "TOOL_CALL_END").unwrap();
    assert!(snap < end && t[end - 1] == "ACTIVITY_DELTA");
}

#[tokio::test]
async fn background_task_uses_activity_types_no_client_knows() {
    let (events, p) = run_scenario("background_task", |_| {}).await;
    assert_clean("background_task", &events, &p);
    let acts = activities(&p);
    let kinds: Vec<_> = acts.iter().map(|a| a.activity_type.as_str()).collect();
    assert_eq!(kinds, [TASK_ACTIVITY, MEMORY_ACTIVITY]);
    let task = Value::Object(acts[0].content.clone());
    assert_eq!(task["status"], "done");
    assert_eq!(task["progress"], 100);
    assert_eq!(task["log"].as_array().unwrap().len(), TASK_STEPS.len());
    assert_eq!(task["result"], json!({"matched": 2, "mismatched": 1}));
    assert_eq!(acts[1].content["entries"].as_array().unwrap().len(), 2);
    assert!(
        types(&events)
            .iter()
            .filter(|t| **t == "ACTIVITY_DELTA")
            .count()
            >= TASK_STEPS.len() + 2
    );
    assert!(assistant_text(&p).contains("2 matched"));
}

//! Tests of the `showcase` module.
use serde_json::json;

use super::super::testing::{assert_clean, assistant_text, run_scenario, types};
use super::{base64, INDEX_STEPS, SEARCH_RESULTS, THINKING};
use crate::protocol::dialect::RENDER_HINT_CUSTOM_NAME;
use crate::protocol::reduce::SubagentStatus;
use crate::protocol::types::Message;

#[test]
fn base64_matches_the_standard_alphabet() {
    assert_eq!(base64(b""), "");
    assert_eq!(base64(b"f"), "Zg==");
    assert_eq!(base64(b"fo"), "Zm8=");
    assert_eq!(base64(b"foo"), "Zm9v");
    assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    assert_eq!(base64(&[0xff, 0xfe]), "//4=");
}

#[tokio::test]
async fn reasoning_streams_thinking_with_an_encrypted_value_then_answers() {
    let (events, p) = run_scenario("reasoning", |_| {}).await;
    assert_clean("reasoning", &events, &p);
    let t = types(&events);
    let at = |ty: &str| t.iter().position(|x| *x == ty).unwrap();
    assert!(at("REASONING_START") < at("REASONING_MESSAGE_START"));
    assert!(at("REASONING_MESSAGE_END") < at("REASONING_ENCRYPTED_VALUE"));
    assert!(at("REASONING_ENCRYPTED_VALUE") < at("REASONING_END"));
    assert!(at("REASONING_END") < at("TEXT_MESSAGE_START"));
    let r = p.conversation.messages.iter().find_map(|m| match m {
        Message::Reasoning(r) => Some(r.clone()),
        _ => None,
    });
    let r = r.expect("a reasoning message");
    assert_eq!(r.content, THINKING);
    assert_eq!(r.encrypted_value_type.as_deref(), Some("demo-opaque"));
    assert!(r.encrypted_value.unwrap().len() > 20);
    assert!(p.conversation.reasoning_spans.is_empty());
    assert!(assistant_text(&p).contains("9.9 is larger"));
}

#[tokio::test]
async fn activities_are_patched_to_completion() {
    let (events, p) = run_scenario("activities", |_| {}).await;
    assert_clean("activities", &events, &p);
    let acts: Vec<_> = p
        .conversation
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Activity(a) => Some(a.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(acts.len(), 2);
    let task = &acts[0];
    assert_eq!(task.activity_type, "BACKGROUND_TASK");
    assert_eq!(task.content["progress"], 100);
    assert_eq!(task.content["status"], "done");
    let steps = task.content["steps"].as_array().unwrap();
    assert_eq!(steps.len(), INDEX_STEPS.len());
    assert!(steps.iter().all(|s| s["status"] == "done"));
    let search = &acts[1];
    assert_eq!(search.activity_type, "SEARCH");
    assert_eq!(search.content["status"], "done");
    let results = search.content["results"].as_array().unwrap();
    assert_eq!(results.len(), SEARCH_RESULTS.len());
    assert!(
        types(&events)
            .iter()
            .filter(|t| **t == "ACTIVITY_DELTA")
            .count()
            >= 8
    );
}

#[tokio::test]
async fn subagents_speak_in_their_own_lanes() {
    let (events, p) = run_scenario("subagents", |_| {}).await;
    assert_clean("subagents", &events, &p);
    let subs = &p.conversation.subagents;
    let names: Vec<_> = subs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["researcher", "writer"]);
    assert!(subs.iter().all(|s| s.status == SubagentStatus::Finished));
    for s in subs {
        let said = p.conversation.messages.iter().any(|m| match m {
            Message::Assistant(a) => a.subagent_run_id.as_deref() == Some(s.id.as_str()),
            _ => false,
        });
        assert!(said, "{} has no attributed message", s.name);
    }
    // Root messages carry no attribution; attributed steps ran inside each subagent.
    let root = p.conversation.messages.iter().filter(|m| match m {
        Message::Assistant(a) => a.subagent_run_id.is_none(),
        _ => false,
    });
    assert_eq!(root.count(), 2);
    let attributed_steps = events
        .iter()
        .filter(|e| e.type_name() == "STEP_STARTED" && e.subagent_run_id.is_some())
        .count();
    assert_eq!(attributed_steps, 2);
}

#[tokio::test]
async fn render_hints_send_a_chart_a_table_and_a_card() {
    let (events, p) = run_scenario("render_hints", |_| {}).await;
    assert_clean("render_hints", &events, &p);
    let hints: Vec<_> = p
        .conversation
        .custom_events
        .iter()
        .filter(|(n, _)| n == RENDER_HINT_CUSTOM_NAME)
        .map(|(_, v)| v.clone())
        .collect();
    let components: Vec<_> = hints.iter().map(|h| h["component"].clone()).collect();
    assert_eq!(components, [json!("chart"), json!("table"), json!("card")]);
    let chart = &hints[0]["props"];
    let labels = chart["labels"].as_array().unwrap().len();
    for s in chart["series"].as_array().unwrap() {
        assert_eq!(s["values"].as_array().unwrap().len(), labels);
    }
    let table = &hints[1]["props"];
    let columns = table["columns"].as_array().unwrap().len();
    for row in table["rows"].as_array().unwrap() {
        assert_eq!(row.as_array().unwrap().len(), columns);
    }
    // The UI's own validators accept every hint (invalid props would render as raw JSON).
    use crate::ui::render_hints::{card, chart, table};
    chart::parse(&hints[0]["props"]).expect("valid chart props");
    table::parse(&hints[1]["props"]).expect("valid table props");
    let c = card::parse(&hints[2]["props"]).expect("valid card props");
    assert_eq!((c.fields.len(), c.actions.len()), (2, 2));
}

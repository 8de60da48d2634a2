//! End-to-end tests of the human-in-the-loop scenarios: each run goes through the runtime and
//! the client pipeline; two-run flows carry the thread forward as a client would.

use std::time::Duration;

use serde_json::{json, Value};

use super::super::testing::{
    approve_waits, assert_clean, assistant_text, call_and_result, input_for, next_input, run_input,
    run_prepared, run_scenario, settings, types,
};
use super::is_approved;
use crate::protocol::pipeline::{Pipeline, StreamOutcome};
use crate::protocol::types::{Content, Message, ResumeEntry, ResumeStatus, Tool, ToolMessage};
use crate::server::runs::Runs;

fn tool(name: &str) -> Tool {
    Tool {
        name: name.into(),
        description: format!("the app's {name}"),
        parameters: None,
        metadata: None,
    }
}

fn tool_message(call: &str, content: Value) -> Message {
    Message::Tool(ToolMessage {
        id: format!("answer-{call}"),
        content: Content::Text(content.to_string()),
        tool_call_id: call.into(),
        error: None,
        encrypted_value: None,
        encrypted_value_type: None,
        metadata: None,
        subagent_run_id: None,
    })
}

/// The text of the last message (the run's final answer).
fn last_text(p: &Pipeline) -> String {
    p.conversation
        .messages
        .last()
        .and_then(Message::text)
        .unwrap_or_default()
}

#[tokio::test]
async fn hitl_leaves_the_frontend_tool_pending_then_continues_with_its_answer() {
    let offered = vec![tool("change_background"), tool("generate_task_steps")];
    let (events, p) = run_scenario("hitl", |i| i.tools = offered).await;
    assert_clean("hitl 1", &events, &p);
    let (call, args, result) = call_and_result(&p);
    assert_eq!(call.function.name, "generate_task_steps");
    assert_eq!(result, None, "a frontend tool is not answered by the agent");
    assert_eq!(p.conversation.pending_tool_call_ids, vec![call.id.clone()]);
    let steps = args["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 6);
    assert!(steps.iter().all(|s| s["status"] == "enabled"));
    // The UI renders these arguments as its checklist component.
    crate::ui::render_hints::checklist::parse(&args).expect("checklist props");
    assert!(
        types(&events)
            .iter()
            .filter(|t| **t == "TOOL_CALL_ARGS")
            .count()
            >= 10
    );

    // The app switches two steps off and answers in the next run.
    let mut answer = args.clone();
    answer["steps"][1]["status"] = json!("disabled");
    answer["steps"][4]["status"] = json!("disabled");
    let mut input = next_input(&p, "hitl");
    input.messages.push(tool_message(&call.id, answer));
    let (events, p2) = run_prepared(input).await;
    assert_clean("hitl 2", &events, &p2);
    assert!(!types(&events).contains(&"TOOL_CALL_START"));
    assert!(p2.conversation.pending_tool_call_ids.is_empty());
    let text = last_text(&p2);
    assert!(text.starts_with("The steps you confirmed:"), "{text}");
    assert!(
        text.contains("4. Launch") && !text.contains("Pack") && !text.contains("goodbye"),
        "{text}"
    );
}

#[tokio::test]
async fn hitl_picks_the_tool_to_call() {
    for (offered, expected) in [
        (vec![], "generate_task_steps"),
        (
            vec![tool("other"), tool("confirm_action")],
            "confirm_action",
        ),
        (vec![tool("my_tool")], "my_tool"),
    ] {
        let (events, p) = run_scenario("hitl", |i| i.tools = offered).await;
        assert_clean(expected, &events, &p);
        assert_eq!(call_and_result(&p).0.function.name, expected);
    }
}

/// First run of `interrupt` (with `text` as the message), then the resumed run answering
/// its interrupt with `status` and `payload`, on the same server (it checks the resume
/// against the interrupts the thread waits on).
async fn interrupt_then(
    text: &str,
    status: ResumeStatus,
    payload: Value,
) -> (Pipeline, Vec<&'static str>, Pipeline) {
    let runs = Runs::new();
    let mut first = input_for("interrupt");
    first.messages = vec![super::super::testing::user(text)];
    let (events, p) = run_input(&runs, first, settings()).await;
    assert_clean("interrupt 1", &events, &p);
    assert_eq!(p.conversation.pending_interrupts.len(), 1);
    let interrupt = p.conversation.pending_interrupts[0].clone();
    let mut input = next_input(&p, "interrupt");
    input.resume = Some(vec![ResumeEntry {
        interrupt_id: interrupt.id,
        status,
        payload: Some(payload),
        metadata: None,
    }]);
    let (events2, p2) = run_input(&runs, input, settings()).await;
    assert_clean("interrupt 2", &events2, &p2);
    assert!(p2.conversation.pending_interrupts.is_empty());
    (p, types(&events2), p2)
}

#[tokio::test]
async fn interrupt_suspends_on_a_tool_call_and_approval_resumes_it() {
    let (p1, t2, p2) = interrupt_then(
        "interrupt",
        ResumeStatus::Resolved,
        json!({"approved": true}),
    )
    .await;
    let i = &p1.conversation.pending_interrupts[0];
    let (call, args, result) = call_and_result(&p1);
    assert_eq!(result, None);
    assert_eq!(call.function.name, "delete_files");
    assert_eq!(
        args,
        json!({"paths": ["/tmp/demo/a.log", "/tmp/demo/b.log"]})
    );
    assert_eq!(i.id, format!("int-{}", call.id));
    assert_eq!(i.reason, "tool_call");
    assert_eq!(i.tool_call_id.as_deref(), Some(call.id.as_str()));
    assert_eq!(i.message.as_deref(), Some("Delete 2 files?"));
    let schema = Value::Object(i.response_schema.clone().unwrap());
    assert_eq!(schema["required"], json!(["approved"]));
    assert_eq!(i.metadata.as_ref().unwrap()["risk"], "high");

    // The resumed run answers the original call without re-opening it.
    assert!(t2.contains(&"TOOL_CALL_RESULT") && !t2.contains(&"TOOL_CALL_START"));
    let (_, _, result) = call_and_result(&p2);
    let deleted = json!(["/tmp/demo/a.log", "/tmp/demo/b.log"]);
    assert_eq!(result.unwrap()["deleted"], deleted);
    assert!(
        last_text(&p2).starts_with("Done: deleted 2 files"),
        "{}",
        last_text(&p2)
    );
}

#[tokio::test]
async fn interrupt_rejected_edited_and_cancelled() {
    let (_, _, p) = interrupt_then(
        "interrupt",
        ResumeStatus::Resolved,
        json!({"approved": false}),
    )
    .await;
    assert_eq!(last_text(&p), "Rejected; nothing was done.");
    assert_eq!(
        call_and_result(&p).2.unwrap(),
        json!({"status": "rejected"})
    );

    let edited = json!({"approved": true, "editedArgs": {"paths": ["/tmp/demo/a.log"]}});
    let (_, _, p) = interrupt_then("interrupt", ResumeStatus::Resolved, edited).await;
    let text = last_text(&p);
    assert!(
        text.starts_with("Done with your edited arguments: deleted 1 file (/tmp/demo/a.log)"),
        "{text}"
    );
    assert_eq!(
        call_and_result(&p).2.unwrap()["deleted"],
        json!(["/tmp/demo/a.log"])
    );

    let (_, _, p) = interrupt_then("interrupt", ResumeStatus::Cancelled, Value::Null).await;
    assert_eq!(last_text(&p), "Cancelled; nothing was done.");
}

#[tokio::test]
async fn interrupt_can_ask_for_input_without_a_tool() {
    let answer = json!({"date": "2026-01-31"});
    let (p1, t2, p2) =
        interrupt_then("interrupt: pick a date", ResumeStatus::Resolved, answer).await;
    let i = &p1.conversation.pending_interrupts[0];
    assert_eq!(i.reason, "input_required");
    assert_eq!(i.tool_call_id, None);
    let schema = Value::Object(i.response_schema.clone().unwrap());
    assert_eq!(schema["properties"]["date"]["format"], "date");
    assert!(!t2.contains(&"TOOL_CALL_RESULT"));
    assert_eq!(
        last_text(&p2),
        "Done: the report is scheduled for 2026-01-31."
    );
}

/// The approval run with `answer` given by a task that watches the pending waits.
async fn approval_answered(answer: Value) -> (Vec<&'static str>, Pipeline, String) {
    let runs = Runs::new();
    let answerer = tokio::spawn(approve_waits(runs.clone(), answer));
    let input = input_for("approval");
    let (events, p) = run_input(&runs, input, settings()).await;
    answerer.await.unwrap();
    assert_clean("approval", &events, &p);
    assert!(runs.pending_waits().is_empty());
    let (call, args, result) = call_and_result(&p);
    assert_eq!(call.function.name, "request_approval");
    assert_eq!(args["risk_level"], "high");
    let result = result.expect("the agent records the human's answer");
    (types(&events), p, result.to_string())
}

#[tokio::test]
async fn approval_waits_with_the_stream_open_for_the_answer() {
    let (_, p, result) = approval_answered(json!({"approved": true})).await;
    assert_eq!(result, r#"{"approved":true}"#);
    assert!(assistant_text(&p).contains("Approved — deploying"));
    let (_, p, result) = approval_answered(json!({"content": "no, rejected"})).await;
    assert_eq!(result, r#"{"approved":false}"#);
    assert_eq!(last_text(&p), "Rejected — nothing was deployed.");
    // The browser client's in-stream answer: the whole POST body, possibly with edits.
    let body =
        json!({"toolCallId": "x", "approved": true, "editedArgs": {"action": "Deploy 1.4.3"}});
    let (_, p, result) = approval_answered(body).await;
    assert_eq!(
        result,
        r#"{"approved":true,"editedArgs":{"action":"Deploy 1.4.3"}}"#
    );
    assert!(last_text(&p).starts_with("Approved with your edits — Deploy 1.4.3…"));
}

#[tokio::test]
async fn approval_times_out_with_a_run_error() {
    let mut s = settings();
    s.approval_timeout = Duration::from_millis(50);
    let runs = Runs::new();
    let (events, p) = run_input(&runs, input_for("approval"), s).await;
    assert_eq!(p.outcome(), StreamOutcome::Completed);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.run_errors.len(), 1);
    assert_eq!(p.run_errors[0].1.as_deref(), Some("APPROVAL_TIMEOUT"));
    assert_eq!(types(&events).last(), Some(&"RUN_ERROR"));
    assert!(runs.pending_waits().is_empty());
}

#[test]
fn answers_are_read_leniently() {
    for yes in [
        json!(true),
        json!({"approved": true}),
        json!({"content": "Approved"}),
        json!({"result": "yes"}),
        json!("{\"approved\": true}"),
        json!({"content": "ok, go"}),
    ] {
        assert!(is_approved(&yes), "{yes}");
    }
    for no in [
        json!(false),
        json!({"approved": false}),
        json!({"content": "not approved"}),
        json!({"result": "Rejected"}),
        json!("no"),
        json!({}),
        json!(null),
        json!("maybe"),
    ] {
        assert!(!is_approved(&no), "{no}");
    }
}

//! Tests of the `session` module.
use super::*;
use crate::client::answers::resume_entries;
use crate::client::errors::{http_failure, network_failure, Target};
use crate::protocol::types::ResumeStatus;
use crate::protocol::types::{AssistantMessage, ToolCall, ToolMessage};
use serde_json::json;

fn assistant_with_call(name: &str, id: &str, args: &str) -> Message {
    let mut call = ToolCall::new(id.into(), name.into());
    call.function.arguments = args.into();
    Message::Assistant(AssistantMessage {
        id: format!("a-{id}"),
        tool_calls: Some(vec![call]),
        ..Default::default()
    })
}

#[test]
fn frontend_tool_pending_after_the_run_is_an_approval() {
    let msgs = vec![assistant_with_call("confirm", "c1", r#"{"x":1}"#)];
    let run = RunView {
        status: RunStatus::Finished {
            run_id: "r".into(),
            outcome: None,
        },
        pending_tool_call_ids: vec!["c1".into()],
        ..Default::default()
    };
    let a = approvals_of(&msgs, &run, &[]);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].kind, ApprovalKind::FrontendTool);
    assert_eq!(a[0].args, json!({"x": 1}));
}

#[test]
fn an_approval_carries_the_schema_of_its_tools_arguments() {
    let run = RunView {
        status: RunStatus::Finished {
            run_id: "r".into(),
            outcome: None,
        },
        pending_tool_call_ids: vec!["c1".into(), "c2".into(), "c3".into()],
        ..Default::default()
    };
    let msgs = vec![
        assistant_with_call("confirm", "c1", r#"{"x":1}"#),
        assistant_with_call("generate_task_steps", "c2", r#"{"steps":[]}"#),
        assistant_with_call("other", "c3", r#"{}"#),
    ];
    let params = json!({"type": "object", "properties": {"x": {"type": "integer"}}});
    let tools = vec![Tool {
        name: "confirm".into(),
        description: String::new(),
        parameters: Some(params.clone()),
        metadata: None,
    }];
    let a = approvals_of(&msgs, &run, &tools);
    assert_eq!(a[0].args_schema, Some(params));
    // The Dojo's step picker is known without being offered; its status is a two-way switch.
    let steps = a[1].args_schema.as_ref().unwrap();
    assert_eq!(
        steps.pointer("/properties/steps/items/properties/status/enum"),
        Some(&json!(["enabled", "disabled"]))
    );
    assert_eq!(a[2].args_schema, None);
    // An offered tool's own schema wins over the known one.
    let offered = vec![Tool {
        name: "generate_task_steps".into(),
        description: String::new(),
        parameters: None,
        metadata: None,
    }];
    assert_eq!(approvals_of(&msgs, &run, &offered)[1].args_schema, None);
}

#[test]
fn answered_calls_are_not_approvals() {
    let msgs = vec![
        assistant_with_call(
            "request_approval",
            "c1",
            r#"{"action":"deploy","risk_level":"high"}"#,
        ),
        Message::Tool(ToolMessage {
            id: "t".into(),
            content: crate::protocol::types::Content::Text("{}".into()),
            tool_call_id: "c1".into(),
            error: None,
            encrypted_value: None,
            encrypted_value_type: None,
            metadata: None,
            subagent_run_id: None,
        }),
    ];
    let run = RunView {
        status: RunStatus::Running { run_id: "r".into() },
        ..Default::default()
    };
    assert!(approvals_of(&msgs, &run, &[]).is_empty());
}

#[test]
fn in_stream_request_is_an_approval_with_risk() {
    let msgs = vec![assistant_with_call(
        "request_approval",
        "c1",
        r#"{"action":"deploy","risk_level":"high"}"#,
    )];
    let run = RunView {
        status: RunStatus::Running { run_id: "r".into() },
        ..Default::default()
    };
    let a = approvals_of(&msgs, &run, &[]);
    assert_eq!(a[0].kind, ApprovalKind::InStream);
    assert_eq!(a[0].risk.as_deref(), Some("high"));
    assert_eq!(a[0].message.as_deref(), Some("deploy"));
}

#[test]
fn interrupts_are_approvals_and_unanswered_ones_are_cancelled_on_resume() {
    let i = Interrupt {
        id: "i1".into(),
        reason: "confirmation".into(),
        message: Some("Sure?".into()),
        tool_call_id: None,
        response_schema: None,
        expires_at: None,
        metadata: None,
        subagent_run_id: None,
    };
    let run = RunView {
        status: RunStatus::Finished {
            run_id: "r".into(),
            outcome: None,
        },
        interrupts: vec![
            i.clone(),
            Interrupt {
                id: "i2".into(),
                ..i.clone()
            },
        ],
        ..Default::default()
    };
    assert_eq!(approvals_of(&[], &run, &[]).len(), 2);
    let mut answers = HashMap::new();
    answers.insert("i1".to_string(), json!({"approved": true}));
    let r = resume_entries(&run.interrupts, &answers);
    assert_eq!(r[0].status, ResumeStatus::Resolved);
    assert_eq!(r[1].status, ResumeStatus::Cancelled);
}

#[test]
fn a_foreign_agent_that_cannot_be_reached_gets_the_cors_and_proxy_explanation() {
    let target = Target {
        url: "http://127.0.0.1:9/agent?key=secret".into(),
        same_origin: false,
    };
    let e = network_failure(&target, "Failed to fetch");
    assert!(
        e.message.contains("http://127.0.0.1:9/agent"),
        "{}",
        e.message
    );
    assert!(
        !e.message.contains("secret"),
        "the query (a key?) is left out"
    );
    assert!(e.message.contains("CORS") && e.message.contains("--proxy"));
    assert_eq!(e.code.as_deref(), Some("NETWORK"));
    // This page's own server: no CORS story.
    let own = Target {
        url: "/api/agents/demo".into(),
        same_origin: true,
    };
    let e = network_failure(&own, "Failed to fetch");
    assert!(!e.message.contains("CORS"), "{}", e.message);
}

#[test]
fn an_http_error_carries_the_status_the_url_the_servers_message_and_a_hint() {
    let target = Target {
        url: "/api/agents/nope".into(),
        same_origin: true,
    };
    let body = r#"{"error":{"code":"not_found","message":"no agent 'nope' is served here"}}"#;
    let e = http_failure(&target, 404, body);
    assert!(
        e.message
            .starts_with("HTTP 404 from /api/agents/nope: no agent 'nope'"),
        "{}",
        e.message
    );
    assert!(e.message.contains("check the Agent URL"));
    assert_eq!(e.code.as_deref(), Some("HTTP_404"));
    // A text body is quoted briefly.
    let e = http_failure(&target, 502, &"x".repeat(10_000));
    assert!(e.message.len() < 600, "{}", e.message.len());
}

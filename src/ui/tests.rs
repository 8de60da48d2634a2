//! Server-side rendering tests of the studio: the page renders with its landmarks and named
//! controls, and agent text is escaped.

use leptos::prelude::*;
use serde_json::json;

use crate::client::session::{Approval, ApprovalKind};
use crate::protocol::types::{AssistantMessage, Message as Msg, ToolCall};
use crate::ui::approval::ApprovalCard;
use crate::ui::message::Message;

fn render(f: impl FnOnce() -> AnyView) -> String {
    let owner = Owner::new();
    owner.set();
    let html = owner.with(|| f().to_html());
    drop(owner);
    html
}

/// A real server on a local socket, in-memory database: its address and its state.
async fn serve() -> (std::net::SocketAddr, crate::server::AppState) {
    use clap::Parser;
    let args = crate::server::config::Cli::try_parse_from(["agui-studio", "--db", ":memory:"])
        .unwrap()
        .serve;
    let state = crate::server::AppState::new(&args).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = crate::server::app(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, state)
}

/// `GET path` from a fresh server: the body, de-chunked.
async fn fetch_page(path: &str) -> String {
    let (addr, _state) = serve().await;
    get(addr, path).await
}

/// `GET path` from the server at `addr`: the body, de-chunked. A response not complete within
/// 20 s fails the test (a stalled page must not hang the suite).
async fn get(addr: std::net::SocketAddr, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let read = async {
        let mut conn = tokio::net::TcpStream::connect(addr).await.unwrap();
        let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        conn.write_all(req.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        conn.read_to_end(&mut raw).await.unwrap();
        raw
    };
    let raw = tokio::time::timeout(std::time::Duration::from_secs(20), read)
        .await
        .unwrap_or_else(|_| panic!("GET {path}: no complete response within 20 s"));
    let raw = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    if !head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return body.to_string();
    }
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&tail[..n]);
        rest = &tail[n + 2..];
    }
    out
}

/// Building a router lists the page's routes by rendering the app with resources held back
/// by a flag Leptos keeps for the whole process; a page whose resource first ran meanwhile
/// never completed (this suite once hung on it). Routers built again and again while pages
/// are served: every page completes, with the threads its resource loads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routers_built_while_pages_are_served_never_stall_a_page() {
    let (addr, state) = serve().await;
    for _ in 0..40 {
        let state = state.clone();
        let builders = tokio::task::spawn_blocking(move || {
            for _ in 0..5 {
                drop(crate::server::app(state.clone()));
            }
        });
        let pages: Vec<_> = (0..4).map(|_| tokio::spawn(get(addr, "/"))).collect();
        for page in pages {
            let html = page.await.expect("a page was served");
            assert!(html.contains(r#"class="studio""#), "{html}");
        }
        builders.await.unwrap();
    }
}

#[tokio::test]
async fn the_served_page_lists_the_hosted_agents_and_their_scenarios() {
    let html = fetch_page("/").await;
    for needle in [
        "Demo agent",
        r#"value="/api/agents/demo""#,
        r#"aria-label="Suggestions""#,
        r#"title="A frontend tool"#,
        ">hitl<",
        r#"role="log""#,
        r#"aria-label="Message""#,
        THEME_KEY,
    ] {
        assert!(html.contains(needle), "missing {needle} in:\n{html}");
    }
    // The demo agent is the selected one.
    let at = html.find(r#"value="/api/agents/demo""#).unwrap();
    let tag_end = at + html[at..].find('>').unwrap();
    assert!(
        html[at..tag_end].contains("selected"),
        "{}",
        &html[at..tag_end]
    );
}

const THEME_KEY: &str = crate::ui::theme::STORAGE_KEY;

#[tokio::test]
async fn the_studio_renders_its_regions_and_named_controls() {
    let html = fetch_page("/").await;
    for needle in [
        r#"class="studio""#,
        r#"class="studio-header""#,
        r#"role="log""#,
        r#"aria-label="Conversation""#,
        r#"aria-live="polite""#,
        r#"aria-label="Message""#,
        r#"id="composer-input""#,
        r#"aria-label="Attach files""#,
        r#"aria-label="Agent""#,
        r#"aria-label="Agent URL""#,
        r#"aria-label="Threads""#,
        r#"aria-label="Toggle theme""#,
        r#"id="hydration-status""#,
        "Talk to an AG-UI agent",
        "New thread",
        ">Send<",
        ">State<",
        ">Events<",
        "/api/agents/demo",
    ] {
        assert!(html.contains(needle), "missing {needle} in:\n{html}");
    }
    // Panels start closed; the toggles say so.
    assert!(html.contains(r#"aria-pressed="false""#));
    assert!(!html.contains(r#"aria-label="Event inspector""#));
}

#[test]
fn assistant_text_is_escaped() {
    let msg = Msg::Assistant(AssistantMessage {
        id: "a1".into(),
        content: Some("Hi <script>alert(1)</script> <img src=x onerror=alert(2)>".into()),
        ..Default::default()
    });
    let html = render(move || {
        let sig = ArcRwSignal::new(msg);
        view! { <Message message=sig/> }.into_any()
    });
    assert!(!html.contains("<script>"), "{html}");
    assert!(!html.contains("<img"), "{html}");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(html.contains(r#"data-role="assistant""#));
}

#[test]
fn tool_calls_render_as_cards_with_pretty_arguments() {
    let mut call = ToolCall::new("c1".into(), "get_weather".into());
    call.function.arguments = r#"{"city":"Paris <b>"}"#.into();
    let msg = Msg::Assistant(AssistantMessage {
        id: "a2".into(),
        tool_calls: Some(vec![call]),
        ..Default::default()
    });
    let html = render(move || {
        let sig = ArcRwSignal::new(msg);
        view! { <Message message=sig/> }.into_any()
    });
    assert!(
        html.contains(r#"aria-label="Tool call: get_weather""#),
        "{html}"
    );
    assert!(
        html.contains("&quot;city&quot;: &quot;Paris &lt;b&gt;&quot;")
            || html.contains("\"city\": \"Paris &lt;b&gt;\""),
        "{html}"
    );
}

#[test]
fn approvals_offer_approve_reject_and_edit() {
    let approval = Approval {
        id: "c1".into(),
        kind: ApprovalKind::InStream,
        tool_call_id: Some("c1".into()),
        tool_name: "request_approval".into(),
        args: json!({"action": "deploy", "risk_level": "high"}),
        message: Some("deploy".into()),
        risk: Some("high".into()),
        response_schema: None,
        args_schema: None,
    };
    let html = render(move || {
        view! {
            <ApprovalCard
                approval
                on_approve=|_| {}
                on_reject=|_| {}
                on_answer=|_| {}
            />
        }
        .into_any()
    });
    for needle in [
        r#"role="group""#,
        r#"aria-label="Approval: request_approval""#,
        ">Approve<",
        ">Reject<",
        ">Edit arguments<",
        r#"aria-expanded="false""#,
        "Risk: high",
    ] {
        assert!(html.contains(needle), "missing {needle} in:\n{html}");
    }
}

/// An interrupt on a tool call offers "Edit arguments" unless the page's agent declares
/// `humanInTheLoop.approveWithEdits: false`; the studio's own approvals always do.
#[test]
fn approval_edits_follow_the_agents_capabilities() {
    let card = |kind: ApprovalKind, caps: Option<serde_json::Value>| {
        render(move || {
            if let Some(doc) = caps.clone() {
                provide_context(crate::ui::agent_caps::AgentCaps::fixed(doc));
            }
            let approval = Approval {
                id: "i1".into(),
                kind,
                tool_call_id: Some("c1".into()),
                tool_name: "send_email".into(),
                args: json!({"to": "a@example.com"}),
                message: None,
                risk: None,
                response_schema: None,
                args_schema: None,
            };
            view! {
                <ApprovalCard approval on_approve=|_| {} on_reject=|_| {} on_answer=|_| {}/>
            }
            .into_any()
        })
    };
    let no_edits = json!({"humanInTheLoop": {"interrupts": true, "approveWithEdits": false}});
    let edits = json!({"humanInTheLoop": {"interrupts": true, "approveWithEdits": true}});
    let edit = ">Edit arguments<";
    assert!(!card(ApprovalKind::Interrupt, Some(no_edits.clone())).contains(edit));
    assert!(card(ApprovalKind::Interrupt, Some(edits)).contains(edit));
    assert!(
        card(ApprovalKind::Interrupt, Some(json!({}))).contains(edit),
        "unknown allows"
    );
    assert!(card(ApprovalKind::Interrupt, None).contains(edit));
    let own = card(ApprovalKind::InStream, Some(no_edits));
    assert!(own.contains(edit) && own.contains(">Approve<"), "{own}");
}

#[test]
fn interrupts_with_a_schema_render_a_form() {
    let approval = Approval {
        id: "int-date-1".into(),
        kind: ApprovalKind::Interrupt,
        tool_call_id: None,
        tool_name: "input_required".into(),
        args: serde_json::Value::Null,
        message: Some("Which date?".into()),
        risk: None,
        response_schema: Some(json!({"type": "object", "properties": {
            "date": {"type": "string", "format": "date", "title": "Report date"}}})),
        args_schema: None,
    };
    let html = render(move || {
        view! {
            <ApprovalCard
                approval
                on_approve=|_| {}
                on_reject=|_| {}
                on_answer=|_| {}
            />
        }
        .into_any()
    });
    assert!(html.contains("Report date"), "{html}");
    assert!(html.contains(r#"type="date""#), "{html}");
    assert!(!html.contains(">Approve<"), "{html}");
    assert!(html.contains(">Submit<"), "{html}");
    assert!(html.contains("Advanced: edit as JSON"), "{html}");
    // No alert before anything was sent.
    assert!(!html.contains(r#"role="alert""#), "{html}");
}

/// The form generated from a schema: steps as checkboxes named by their description, booleans
/// as switches, enums as selects, lists with add and remove; agent text stays text.
#[test]
fn schema_editor_renders_checklists_switches_selects_and_lists() {
    use crate::ui::schema_form::{EditorState, SchemaEditor};
    let schema = json!({"type": "object", "properties": {
        "steps": {"type": "array", "items": {"type": "object", "properties": {
            "description": {"type": "string"},
            "status": {"enum": ["enabled", "disabled"]}}}},
        "dry_run": {"type": "boolean", "title": "Dry run"},
        "region": {"enum": ["eu", "us"], "title": "Region"},
        "paths": {"type": "array", "items": {"type": "string"}},
        "count": {"type": "integer", "minimum": 1, "maximum": 5}},
        "required": ["region"]});
    let value = json!({"steps": [
        {"description": "Fuel <b>the</b> rocket", "status": "enabled"},
        {"description": "Launch", "status": "disabled"}],
        "region": "us", "paths": ["/tmp/a"], "count": 2});
    let html = render(move || {
        let state = EditorState::new(schema, value);
        view! { <SchemaEditor state id_prefix="t 1" json_label="Arguments (JSON)"/> }.into_any()
    });
    for needle in [
        "<legend>Steps</legend>",
        "Fuel &lt;b&gt;the&lt;/b&gt; rocket",
        ">Launch</label>",
        r#"role="switch""#,
        ">Dry run</label>",
        "<select",
        r#"<option value="1" selected>us</option>"#,
        r#"aria-label="Add to Paths""#,
        r#"aria-label="Remove Path 1""#,
        r#"min="1""#,
        r#"max="5""#,
        r#"aria-pressed="false""#,
        "Advanced: edit as JSON",
    ] {
        assert!(html.contains(needle), "missing {needle} in:\n{html}");
    }
    assert_eq!(html.matches(r#"type="checkbox""#).count(), 3, "{html}");
    assert_eq!(html.matches(" checked").count(), 1, "{html}");
    assert!(!html.contains("<b>"), "{html}");
}

#[tokio::test]
#[ignore = "prints the served page; run with --ignored --nocapture"]
async fn print_page() {
    println!("{}", fetch_page("/").await);
}

/// The header typed for one Agent URL goes to that URL only: never to this server's own API
/// (`/…`), nor to a URL typed later, nor anywhere when nothing was typed.
#[test]
fn a_typed_header_goes_only_to_the_agent_url_it_was_typed_for() {
    use crate::ui::thread_store::AgentHeader;
    let owner = Owner::new();
    owner.set();
    let h = AgentHeader::new();
    let foreign = "https://agent.example/run";
    assert!(h.for_url(foreign).is_empty(), "nothing typed, nothing sent");
    h.url.set(foreign.to_string());
    h.value.set("sesame".into());
    assert_eq!(
        h.for_url(foreign),
        vec![("Authorization".to_string(), "Bearer sesame".to_string())]
    );
    assert!(h.for_url("https://other.example/run").is_empty());
    assert!(
        h.for_url("/api/agents/demo").is_empty(),
        "never to our own API"
    );
    h.url.set("/api/agents/demo".into());
    assert!(
        h.for_url("/api/agents/demo").is_empty(),
        "not even when typed for it"
    );
    h.url.set(foreign.to_string());
    h.value.set("X-Api-Key: k1".into());
    assert_eq!(
        h.for_url(foreign),
        vec![("X-Api-Key".to_string(), "k1".to_string())]
    );
    // "//host" is another origin, not a path of ours.
    h.url.set("//evil.example/x".into());
    assert_eq!(h.for_url("//evil.example/x").len(), 1);
}

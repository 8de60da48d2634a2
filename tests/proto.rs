//! The protobuf binding end to end, over real sockets: every demo scenario answered in frames
//! (`Accept: application/vnd.ag-ui.event+proto`) carries exactly the events the same run replays
//! over SSE, a run resumes over protobuf by counting frames, `Accept` negotiation keeps SSE as
//! the default, and the wire sizes of both encodings of the `long` scenario are printed.

mod common;

use std::net::SocketAddr;

use agui_studio::protocol::pipeline::{Pipeline, PipelineOptions, StreamOutcome};
use agui_studio::protocol::proto::{decode_payload, FrameDecoder, MEDIA_TYPE};
use agui_studio::protocol::sse::Decoder;
use agui_studio::protocol::types::RunAgentInput;
use agui_studio::server::agents::demo::SCENARIOS;
use common::{run, start_server, HttpConn};
use serde_json::{json, Value};

fn input(thread: &str, run_id: &str, text: &str) -> Value {
    json!({
        "threadId": thread,
        "runId": run_id,
        "messages": [{"id": format!("u-{run_id}"), "role": "user", "content": text}],
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
    })
}

/// A body's frames decoded to JSON, and the bytes it took; `None` entries never happen (a
/// frame that fails to decode fails the test).
async fn read_proto(conn: &mut HttpConn) -> (Vec<Value>, usize) {
    let mut d = FrameDecoder::new();
    let (mut events, mut bytes) = (Vec::new(), 0);
    while let Some(chunk) = conn.next_body_bytes().await {
        bytes += chunk.len();
        for payload in d.push(&chunk).expect("frames within the limit") {
            events.push(decode_payload(&payload).unwrap_or_else(|e| panic!("{e}")));
        }
    }
    d.finish().expect("the body ends on a frame boundary");
    assert!(conn.body_error.is_none(), "{:?}", conn.body_error);
    (events, bytes)
}

/// A body's SSE events (with their ids), and the bytes it took.
async fn read_sse(conn: &mut HttpConn) -> (Vec<(u64, Value)>, usize) {
    let mut d = Decoder::new();
    let (mut events, mut bytes) = (Vec::new(), 0);
    let mut push = |frames: Vec<agui_studio::protocol::sse::SseFrame>| {
        for f in frames {
            let id = f.id.as_deref().and_then(|i| i.parse().ok()).expect("an id");
            events.push((id, serde_json::from_str(&f.data).unwrap()));
        }
    };
    while let Some(chunk) = conn.next_body_bytes().await {
        bytes += chunk.len();
        push(d.push(&chunk).unwrap());
    }
    push(d.finish().unwrap());
    (events, bytes)
}

fn content_type(conn: &HttpConn) -> Option<&str> {
    conn.headers
        .iter()
        .find(|(k, _)| k == "content-type")
        .map(|(_, v)| v.as_str())
}

async fn post(addr: SocketAddr, body: &Value, headers: &[(&str, &str)]) -> HttpConn {
    let body = body.to_string();
    let conn = HttpConn::send(
        addr,
        "POST",
        "/api/agents/demo",
        headers,
        Some(body.as_bytes()),
    )
    .await;
    assert_eq!(conn.status, 200);
    conn
}

/// The run's stored events replayed over SSE.
async fn replay_sse(addr: SocketAddr, run_id: &str) -> (Vec<(u64, Value)>, usize) {
    let path = format!("/api/runs/{run_id}/events");
    let mut conn = HttpConn::send(addr, "GET", &path, &[], None).await;
    assert_eq!(conn.status, 200);
    read_sse(&mut conn).await
}

#[test]
fn every_demo_scenario_over_protobuf_carries_the_events_sse_replays() {
    run(async {
        let (addr, _state) = start_server(&["--demo-delay-ms", "0"]).await;
        for s in SCENARIOS.iter().filter(|s| s.name != "approval") {
            let run_id = format!("proto-{}", s.name);
            let body = input(&format!("t-{}", s.name), &run_id, s.name);
            let mut conn = post(addr, &body, &[("Accept", MEDIA_TYPE)]).await;
            assert_eq!(content_type(&conn), Some(MEDIA_TYPE), "{}", s.name);
            let (events, _) = read_proto(&mut conn).await;
            // Through our client pipeline: a complete, valid run.
            let parsed: RunAgentInput = serde_json::from_value(body.clone()).unwrap();
            let mut p = Pipeline::for_input(&parsed, PipelineOptions::default());
            for e in &events {
                p.push_value(None, e.clone());
            }
            p.finish();
            assert_eq!(
                p.outcome(),
                StreamOutcome::Completed,
                "{}: {:?}",
                s.name,
                p.error()
            );
            // Frame i is event i + 1 of the stored run, identical to its SSE form.
            let (sse, _) = replay_sse(addr, &run_id).await;
            let ids: Vec<u64> = sse.iter().map(|(id, _)| *id).collect();
            assert_eq!(
                ids,
                (1..=events.len() as u64).collect::<Vec<_>>(),
                "{}",
                s.name
            );
            let sse: Vec<Value> = sse.into_iter().map(|(_, e)| e).collect();
            assert_eq!(events, sse, "{}", s.name);
        }
    });
}

#[test]
fn a_run_resumes_over_protobuf_by_counting_frames() {
    run(async {
        let (addr, _state) = start_server(&["--demo-delay-ms", "2"]).await;
        let body = input("t-resume", "proto-resume", "long 400");
        let mut conn = post(
            addr,
            &body,
            &[("Accept", MEDIA_TYPE), ("X-AGUI-Detach", "true")],
        )
        .await;
        // Read some frames, then drop the connection, possibly inside a frame.
        let mut d = FrameDecoder::new();
        let mut first = Vec::new();
        while first.len() < 50 {
            let chunk = conn.next_body_bytes().await.expect("more of the run");
            for payload in d.push(&chunk).unwrap() {
                first.push(decode_payload(&payload).unwrap());
            }
        }
        drop(conn);
        let position = first.len().to_string();
        let mut rest = HttpConn::send(
            addr,
            "GET",
            "/api/runs/proto-resume/events",
            &[("Accept", MEDIA_TYPE), ("Last-Event-ID", &position)],
            None,
        )
        .await;
        assert_eq!(rest.status, 200);
        assert_eq!(content_type(&rest), Some(MEDIA_TYPE));
        let (tail, _) = read_proto(&mut rest).await;
        let mut all = first;
        all.extend(tail);
        let (sse, _) = replay_sse(addr, "proto-resume").await;
        let sse: Vec<Value> = sse.into_iter().map(|(_, e)| e).collect();
        assert_eq!(all.len(), sse.len());
        assert_eq!(all, sse, "no gap and no duplicate");
        assert_eq!(all.last().unwrap()["type"], "RUN_FINISHED");
    });
}

#[test]
fn accept_negotiation_keeps_sse_unless_protobuf_is_preferred() {
    run(async {
        let (addr, _state) = start_server(&["--demo-delay-ms", "0"]).await;
        for (i, (accept, want)) in [
            (None, "text/event-stream"),
            (Some("*/*"), "text/event-stream"),
            (
                Some("text/event-stream, application/vnd.ag-ui.event+proto;q=0.5"),
                "text/event-stream",
            ),
            (
                Some("text/event-stream;q=0.5, application/vnd.ag-ui.event+proto"),
                MEDIA_TYPE,
            ),
            (
                Some("application/vnd.ag-ui.event+proto;q=0"),
                "text/event-stream",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            let body = input("t-accept", &format!("accept-{i}"), "chat");
            let headers: Vec<(&str, &str)> = accept.map(|a| ("Accept", a)).into_iter().collect();
            let conn = post(addr, &body, &headers).await;
            assert_eq!(content_type(&conn), Some(want), "{accept:?}");
            conn.read_to_end().await;
        }
    });
}

#[test]
fn a_0x_client_asking_for_protobuf_is_told_to_read_sse() {
    // Its events would be downgraded, some left out, and a resume that counts frames would
    // then repeat events: refused before the run starts, with a JSON error.
    run(async {
        let (addr, _state) = start_server(&["--demo-delay-ms", "0"]).await;
        let mut body = input("t-old", "old-1", "subagents");
        body["protocolVersion"] = json!("0.0.48");
        let body = body.to_string();
        let conn = HttpConn::send(
            addr,
            "POST",
            "/api/agents/demo",
            &[("Accept", MEDIA_TYPE)],
            Some(body.as_bytes()),
        )
        .await;
        assert_eq!(conn.status, 400);
        let err: Value =
            serde_json::from_str(&conn.read_to_end().await.body).expect("a JSON error body");
        assert_eq!(err["error"]["code"], "invalid_request", "{err}");
        // Over SSE the same input runs.
        let conn =
            HttpConn::send(addr, "POST", "/api/agents/demo", &[], Some(body.as_bytes())).await;
        assert_eq!(conn.status, 200);
        conn.read_to_end().await;
    });
}

#[test]
fn wire_sizes_of_the_long_scenario() {
    run(async {
        let (addr, _state) = start_server(&["--demo-delay-ms", "0"]).await;
        let body = input("t-size", "proto-size", "long 1000");
        let mut conn = post(addr, &body, &[("Accept", MEDIA_TYPE)]).await;
        let (events, proto_bytes) = read_proto(&mut conn).await;
        let (sse, sse_bytes) = replay_sse(addr, "proto-size").await;
        assert_eq!(events.len(), sse.len());
        let n = events.len() as f64;
        println!(
            "long 1000: {} events; protobuf {proto_bytes} B ({:.1} B/event), SSE {sse_bytes} B ({:.1} B/event), protobuf/SSE = {:.2}",
            events.len(),
            proto_bytes as f64 / n,
            sse_bytes as f64 / n,
            proto_bytes as f64 / sse_bytes as f64
        );
        assert!(proto_bytes < sse_bytes);
    });
}

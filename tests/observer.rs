//! Seed 004 ("Super-Goose") `/api/ag-ui/*` endpoints over a real loopback socket: the observer
//! stream (order, filtering, keep-alive, disconnect, resync after lag), the thread views, and
//! message / tool-result / abort.
#![cfg(feature = "ssr")]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};

const FAST: &[&str] = &["--demo-delay-ms", "0"];

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// Open an observer and wait for its `: connected` comment, so it is subscribed.
async fn observe(addr: std::net::SocketAddr, path: &str) -> SseReader {
    let mut obs = open_sse(addr, "GET", path, None).await;
    assert_eq!(obs.status(), 200);
    assert_eq!(obs.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        obs.next_item().await,
        Some(SseItem::Comment("connected".into()))
    );
    obs
}

/// `POST /api/ag-ui/message` → (threadId, runId).
async fn send_message(addr: std::net::SocketAddr, body: Value) -> (String, String) {
    let (status, text) = post_json(addr, "/api/ag-ui/message", &body).await;
    assert_eq!(status, 202, "{text}");
    let v = json_of(&text);
    (
        v["threadId"].as_str().unwrap().to_string(),
        v["runId"].as_str().unwrap().to_string(),
    )
}

/// The scenario ran, or the demo agent does not have it yet (then the caller skips what is
/// specific to it).
fn implemented(run: &[Value], scenario: &str) -> bool {
    let last = run.last().unwrap();
    if last["type"] == "RUN_ERROR" && last["code"] == "NOT_IMPLEMENTED" {
        eprintln!(
            "NOTE: the demo scenario '{scenario}' is not implemented yet; skipped its checks"
        );
        return false;
    }
    true
}

#[tokio::test]
async fn observer_sees_a_message_run_in_order() {
    let (addr, _state) = start_server(FAST).await;
    let mut obs = observe(addr, "/api/ag-ui/stream").await;
    let (thread, run) = send_message(addr, json!({"content": "chat hello"})).await;
    assert!(thread.starts_with("thread-") && run.starts_with("run-"));

    let mut ids = Vec::new();
    let mut events = Vec::new();
    loop {
        let f = obs.next_frame().await.unwrap();
        ids.push(f.id.clone().unwrap().parse::<u64>().unwrap());
        let e = json_of(&f.data);
        let end = e["type"] == "RUN_FINISHED";
        events.push(e);
        if end {
            break;
        }
    }
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids increase: {ids:?}");
    let t = types(&events);
    assert_eq!(t[0], "RUN_STARTED");
    assert_eq!(events[0]["threadId"], thread.as_str());
    assert_eq!(events[0]["runId"], run.as_str());
    assert_eq!(events.last().unwrap()["runId"], run.as_str());
    let start = t.iter().position(|t| *t == "TEXT_MESSAGE_START").unwrap();
    let end = t.iter().position(|t| *t == "TEXT_MESSAGE_END").unwrap();
    assert!(
        start < end && t[start + 1] == "TEXT_MESSAGE_CONTENT",
        "{t:?}"
    );
}

#[tokio::test]
async fn observer_sees_a_run_of_the_canonical_endpoint() {
    let (addr, _state) = start_server(FAST).await;
    let mut obs = observe(addr, "/api/ag-ui/stream").await;
    let input = json!({
        "threadId": "t-canon", "runId": "r-canon",
        "messages": [{"id": "u1", "role": "user", "content": "chat hi"}],
        "tools": [], "context": [], "forwardedProps": {}
    });
    let mut own = open_sse(addr, "POST", "/api/agents/demo", Some(&input.to_string())).await;
    assert_eq!(own.status(), 200);
    let own_data: Vec<String> = own
        .frames_to_end()
        .await
        .into_iter()
        .map(|f| f.data)
        .collect();
    let seen = obs.read_run().await;
    let seen_data: Vec<String> = seen.iter().map(|e| e.to_string()).collect();
    let own_norm: Vec<String> = own_data.iter().map(|d| json_of(d).to_string()).collect();
    // The observer sees exactly what the client that started the run saw.
    assert_eq!(seen_data, own_norm);
    assert_eq!(seen[0]["type"], "RUN_STARTED");
    assert_eq!(seen[0]["runId"], "r-canon");
    assert_eq!(seen.last().unwrap()["type"], "RUN_FINISHED");
}

#[tokio::test]
async fn thread_filter_limits_the_stream_to_one_thread() {
    let (addr, state) = start_server(FAST).await;
    let mut mine = observe(addr, "/api/ag-ui/stream?threadId=t-mine").await;
    let (_, other_run) =
        send_message(addr, json!({"content": "chat one", "threadId": "t-other"})).await;
    wait_until(Duration::from_secs(10), "the other run ended", || {
        !state.runs.is_active(&other_run)
    })
    .await;
    let (_, run) = send_message(addr, json!({"content": "chat two", "threadId": "t-mine"})).await;
    let events = mine.read_run().await;
    assert_eq!(events[0]["type"], "RUN_STARTED");
    assert_eq!(events[0]["threadId"], "t-mine");
    assert_eq!(events[0]["runId"], run.as_str());
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    assert_eq!(events.last().unwrap()["runId"], run.as_str());
    assert!(events
        .iter()
        .all(|e| e["runId"].is_null() || e["runId"] == run.as_str()));
}

#[tokio::test]
async fn observer_gets_keep_alives_while_idle() {
    let (addr, _state) = start_server(&["--demo-delay-ms", "0", "--keep-alive", "1"]).await;
    let mut obs = observe(addr, "/api/ag-ui/stream").await;
    let item = obs
        .next_item_within(Duration::from_secs(5))
        .await
        .expect("a keep-alive in time");
    assert_eq!(item, Some(SseItem::Comment("keep-alive".into())));
}

#[tokio::test]
async fn observer_disconnect_ends_its_subscription() {
    let (addr, state) = start_server(&["--demo-delay-ms", "0", "--keep-alive", "1"]).await;
    let obs = observe(addr, "/api/ag-ui/stream").await;
    assert_eq!(state.runs.observer_count(), 1);
    drop(obs);
    // Noticed at the latest when a keep-alive cannot be written.
    wait_until(Duration::from_secs(5), "the observer is gone", || {
        state.runs.observer_count() == 0
    })
    .await;
}

#[tokio::test]
async fn lagging_observer_is_resynchronised_then_continues() {
    let (addr, state) = start_server(FAST).await;
    let mut obs = observe(addr, "/api/ag-ui/stream?threadId=t-lag").await;
    // 100 000 events (~15 MB of SSE) overflow the 4096-event hub and the socket buffers while
    // the observer does not read.
    let (_, run) = send_message(addr, json!({"content": "long 100000", "threadId": "t-lag"})).await;
    wait_until(Duration::from_secs(120), "the long run ended", || {
        state.runs.active_count() == 0
    })
    .await;

    // Read until the resync comment; what comes before is the live prefix.
    let mut saw_start = false;
    let missed = loop {
        match obs.next_item().await.expect("the stream goes on") {
            SseItem::Comment(c) if c.starts_with("resync after ") => break c,
            SseItem::Comment(c) => assert_eq!(c, "keep-alive"),
            SseItem::Frame(f) => saw_start |= json_of(&f.data)["type"] == "RUN_STARTED",
        }
    };
    let n: u64 = missed
        .trim_start_matches("resync after ")
        .trim_end_matches(" missed events")
        .parse()
        .unwrap();
    assert!(n > 0, "{missed}");
    let snap = json_of(&obs.next_frame().await.unwrap().data);
    assert_eq!(snap["type"], "MESSAGES_SNAPSHOT");
    assert_eq!(
        snap["metadata"],
        json!({"threadId": "t-lag", "resync": true})
    );
    let state_snap = json_of(&obs.next_frame().await.unwrap().data);
    assert_eq!(state_snap["type"], "STATE_SNAPSHOT");
    // The run ended while the observer lagged: the snapshot has the whole answer…
    let messages = snap["messages"].as_array().unwrap();
    let answer = messages.last().unwrap();
    assert_eq!(answer["role"], "assistant");
    assert!(answer["content"]
        .as_str()
        .unwrap()
        .ends_with("99998 99999 "));
    // …and if the observer had delivered the run's start, the end it missed comes with it
    // (the server normally writes the first events before the socket fills up).
    if saw_start {
        let finished = obs.next_event().await.unwrap();
        assert_eq!(finished["type"], "RUN_FINISHED");
        assert_eq!(finished["runId"], run.as_str());
    } else {
        eprintln!("NOTE: the observer lagged before delivering RUN_STARTED");
    }

    // Live again: the next run on the thread arrives whole.
    let (_, next) = send_message(addr, json!({"content": "chat again", "threadId": "t-lag"})).await;
    let events = obs.read_run().await;
    assert_eq!(events[0]["type"], "RUN_STARTED");
    assert_eq!(events[0]["runId"], next.as_str());
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
}

#[tokio::test]
async fn views_are_empty_before_any_run_and_404_for_unknown_threads() {
    let (addr, _state) = start_server(FAST).await;
    for (path, key, empty) in [
        ("/api/ag-ui/state", "state", json!({})),
        ("/api/ag-ui/messages", "messages", json!([])),
        ("/api/ag-ui/activities", "activities", json!([])),
    ] {
        let (status, body) = get(addr, path).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(json_of(&body), json!({"threadId": null, key: empty}));
        let (status, body) = get(addr, &format!("{path}?threadId=nope")).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert_eq!(json_of(&body)["error"]["code"], "not_found");
    }
}

#[tokio::test]
async fn message_continues_the_thread_and_the_views_follow_it() {
    let (addr, _state) = start_server(FAST).await;
    let mut obs = observe(addr, "/api/ag-ui/stream?threadId=t-views").await;
    send_message(
        addr,
        json!({"content": "chat first", "threadId": "t-views"}),
    )
    .await;
    obs.read_run().await;
    send_message(
        addr,
        json!({"content": "chat second", "threadId": "t-views"}),
    )
    .await;
    obs.read_run().await;

    // Without threadId: the most recently active thread.
    let (status, body) = get(addr, "/api/ag-ui/messages").await;
    assert_eq!(status, 200);
    let v = json_of(&body);
    assert_eq!(v["threadId"], "t-views");
    let msgs = v["messages"].as_array().unwrap();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"], "{body}");
    assert_eq!(msgs[0]["content"], "chat first");
    assert_eq!(msgs[2]["content"], "chat second");

    // agentic_ui: the plan lands in the thread's state.
    send_message(
        addr,
        json!({"content": "agentic_ui plan a trip", "threadId": "t-views"}),
    )
    .await;
    let run = obs.read_run().await;
    let (status, body) = get(addr, "/api/ag-ui/state?threadId=t-views").await;
    assert_eq!(status, 200);
    let v = json_of(&body);
    assert_eq!(v["threadId"], "t-views");
    // Scenario-specific (the demo scenario may still be in progress elsewhere).
    if implemented(&run, "agentic_ui") {
        assert_eq!(run.last().unwrap()["type"], "RUN_FINISHED");
        assert!(
            v["state"].as_object().is_some_and(|o| !o.is_empty()),
            "agentic_ui leaves a non-empty state: {body}"
        );
    }

    // activities: activity messages, listed apart from the other messages.
    send_message(
        addr,
        json!({"content": "activities", "threadId": "t-views"}),
    )
    .await;
    let run = obs.read_run().await;
    let (status, body) = get(addr, "/api/ag-ui/activities?threadId=t-views").await;
    assert_eq!(status, 200);
    let acts = json_of(&body)["activities"].as_array().unwrap().clone();
    let (_, body) = get(addr, "/api/ag-ui/messages?threadId=t-views").await;
    let msgs = json_of(&body)["messages"].as_array().unwrap().clone();
    assert!(msgs.iter().all(|m| m["role"] != "activity"));
    // Scenario-specific (see above).
    if implemented(&run, "activities") {
        assert_eq!(run.last().unwrap()["type"], "RUN_FINISHED");
        assert!(
            !acts.is_empty(),
            "the activities run leaves activity messages"
        );
        assert!(acts
            .iter()
            .all(|a| a["role"] == "activity" && a["activityType"].is_string()));
    }
}

#[tokio::test]
async fn tool_result_answers_an_approval() {
    let (addr, state) = start_server(FAST).await;
    let mut obs = observe(addr, "/api/ag-ui/stream?threadId=t-approve").await;
    let (_, run) = send_message(
        addr,
        json!({"content": "approval please", "threadId": "t-approve"}),
    )
    .await;
    // The run waits (stream open) for the answer, or ends at once if the scenario is missing.
    let mut waiting = None;
    wait_until(
        Duration::from_secs(10),
        "the approval waits or the run ends",
        || {
            waiting = state
                .runs
                .pending_waits()
                .into_iter()
                .find(|(_, t, _)| t == "t-approve");
            waiting.is_some() || !state.runs.is_active(&run)
        },
    )
    .await;
    let Some((call, thread, run_of_call)) = waiting else {
        let events = obs.read_run().await;
        assert!(!implemented(&events, "approval"), "{events:?}");
        return;
    };
    assert_eq!(
        (thread.as_str(), run_of_call.as_str()),
        ("t-approve", run.as_str())
    );

    let (status, body) = post_json(
        addr,
        "/api/ag-ui/tool-result",
        &json!({"toolCallId": call, "approved": true}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        json_of(&body),
        json!({"ok": true, "threadId": "t-approve", "runId": run})
    );
    let events = obs.read_run().await;
    let result = events
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_RESULT")
        .expect("a TOOL_CALL_RESULT");
    assert_eq!(result["toolCallId"], call.as_str());
    assert!(
        result["content"].as_str().unwrap().contains("true"),
        "{result}"
    );
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    assert_eq!(events.last().unwrap()["runId"], run.as_str());

    // The same call cannot be answered twice.
    let (status, body) =
        post_json(addr, "/api/ag-ui/tool-result", &json!({"toolCallId": call})).await;
    assert_eq!(status, 404, "{body}");
}

#[tokio::test]
async fn tool_result_errors() {
    let (addr, _state) = start_server(FAST).await;
    let (status, body) = post_json(
        addr,
        "/api/ag-ui/tool-result",
        &json!({"toolCallId": "call-nobody", "approved": true}),
    )
    .await;
    assert_eq!(status, 404);
    let v = json_of(&body);
    assert_eq!(v["error"]["code"], "not_found");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("call-nobody"));
    let (status, _) = post_json(addr, "/api/ag-ui/tool-result", &json!({"approved": true})).await;
    assert_eq!(status, 422);
    let (status, _) = post_json(addr, "/api/ag-ui/tool-result", &json!({"toolCallId": 7})).await;
    assert_eq!(status, 422);
    let (status, body) = post_raw(addr, "/api/ag-ui/tool-result", "{not json").await;
    assert_eq!(status, 400);
    assert_eq!(json_of(&body)["error"]["code"], "invalid_json");
}

#[tokio::test]
async fn abort_cancels_a_long_run() {
    let (addr, state) = start_server(FAST).await;
    let mut obs = observe(addr, "/api/ag-ui/stream?threadId=t-abort").await;
    let (_, run) = send_message(
        addr,
        json!({"content": "long 1000000", "threadId": "t-abort"}),
    )
    .await;
    let started = obs.next_event().await.unwrap();
    assert_eq!(
        started["type"],
        "RUN_STARTED",
        "{}",
        &obs.raw[..obs.raw.len().min(600)]
    );
    assert_eq!(started["runId"], run.as_str());

    let (status, body) = post_json(addr, "/api/ag-ui/abort", &json!({"runId": run})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(json_of(&body), json!({"aborted": 1}));
    // Read on (the observer may have lagged and been resynchronised meanwhile) to the end.
    let events = obs.read_run().await;
    let end = events.last().unwrap();
    assert_eq!(end["type"], "RUN_FINISHED", "{end}");
    assert_eq!(end["runId"], run.as_str());
    assert_eq!(end["outcome"], json!({"type": "cancelled"}));
    wait_until(Duration::from_secs(2), "no run is active", || {
        state.runs.active_count() == 0
    })
    .await;
}

#[tokio::test]
async fn abort_by_thread_and_everything() {
    let (addr, state) = start_server(FAST).await;
    // Nothing to abort: an empty body and `{}` both mean "every run", which is none.
    let r = request(addr, "POST", "/api/ag-ui/abort", &[], None).await;
    assert_eq!((r.status, r.json()), (200, json!({"aborted": 0})));
    let (status, body) = post_json(addr, "/api/ag-ui/abort", &json!({})).await;
    assert_eq!((status, json_of(&body)), (200, json!({"aborted": 0})));
    // Named but not running: 404.
    let (status, body) = post_json(addr, "/api/ag-ui/abort", &json!({"runId": "run-none"})).await;
    assert_eq!(status, 404, "{body}");
    let (status, _) = post_json(addr, "/api/ag-ui/abort", &json!({"threadId": "t-none"})).await;
    assert_eq!(status, 404);
    let (status, _) = post_json(addr, "/api/ag-ui/abort", &json!({"runId": 5})).await;
    assert_eq!(status, 422);

    // By thread, then everything.
    send_message(addr, json!({"content": "long 1000000", "threadId": "t-a"})).await;
    send_message(addr, json!({"content": "long 1000000", "threadId": "t-b"})).await;
    send_message(addr, json!({"content": "long 1000000", "threadId": "t-b"})).await;
    let (status, body) = post_json(addr, "/api/ag-ui/abort", &json!({"threadId": "t-b"})).await;
    assert_eq!((status, json_of(&body)), (200, json!({"aborted": 2})));
    // A cancelled run stays in progress until its task has written its end; "everything" would
    // count those two again while they end (seen once in `.ci/run` on a loaded machine).
    wait_until(Duration::from_secs(5), "thread t-b's runs ended", || {
        state.runs.active_count() == 1
    })
    .await;
    let r = request(addr, "POST", "/api/ag-ui/abort", &[], Some(b"")).await;
    assert_eq!((r.status, r.json()), (200, json!({"aborted": 1})));
    wait_until(Duration::from_secs(2), "no run is active", || {
        state.runs.active_count() == 0
    })
    .await;
}

#[tokio::test]
async fn message_errors() {
    let (addr, _state) = start_server(&["--demo-delay-ms", "0", "--body-limit", "256"]).await;
    for (body, want) in [
        (json!({}), 422),
        (json!({"content": ""}), 422),
        (json!({"content": 3}), 422),
        (json!({"content": "hi", "threadId": 3}), 422),
        (json!(["content"]), 422),
        (json!({"content": "hi", "forwardedProps": "x"}), 422),
        (json!({"content": "hi", "agentId": "nobody"}), 404),
        (json!({"content": "x".repeat(300)}), 413),
    ] {
        let (status, text) = post_json(addr, "/api/ag-ui/message", &body).await;
        assert_eq!(status, want, "{body} → {text}");
        assert!(json_of(&text)["error"]["code"].is_string(), "{text}");
    }
    let (status, _) = post_raw(addr, "/api/ag-ui/message", "nope").await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn message_uses_given_state_and_forwarded_props() {
    let (addr, _state) = start_server(FAST).await;
    let mut obs = observe(addr, "/api/ag-ui/stream?threadId=t-props").await;
    // forwardedProps.scenario picks the demo scenario whatever the text says.
    send_message(
        addr,
        json!({"content": "hello there", "threadId": "t-props", "agentId": "demo",
               "forwardedProps": {"scenario": "long"}, "state": {"k": 1}}),
    )
    .await;
    let events = obs.read_run().await;
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    // `long` with no number streams 1000 deltas.
    let deltas = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .count();
    assert_eq!(deltas, 1000);
    let (_, body) = get(addr, "/api/ag-ui/state?threadId=t-props").await;
    assert_eq!(json_of(&body)["state"], json!({"k": 1}));
}

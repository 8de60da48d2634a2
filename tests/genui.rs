//! Generative UI's server side over real sockets: the sandboxed frame's loader (its policy, its
//! public route, hostile queries) and side runs (an MCP request the agent proxies) that answer
//! in `RUN_FINISHED.result` and leave no trace in the thread.
#![cfg(feature = "ssr")]

mod common;

use common::{request, start_server};
use serde_json::{json, Value};

fn events(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect()
}

#[test]
fn the_frame_loader_is_public_and_serves_its_own_policy() {
    common::run(async {
        let (addr, _) = start_server(&["--auth-token", "sesame", "--demo-delay-ms", "0"]).await;
        let q = "/sandbox/frame?connect=https://api.example.com+%27unsafe-eval%27+*&resource=https://cdn.example.com&v=3";
        let r = request(addr, "GET", q, &[], None).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(
            csp.starts_with("sandbox allow-scripts; default-src 'none';"),
            "{csp}"
        );
        assert!(
            csp.contains("connect-src https://api.example.com;"),
            "{csp}"
        );
        assert!(
            csp.contains("script-src 'unsafe-inline' https://cdn.example.com;"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'self'"), "{csp}");
        assert!(
            !csp.contains("unsafe-eval") && !csp.contains("nonce-"),
            "{csp}"
        );
        assert!(r.body.contains("agui-studio/frame-html"), "{}", r.body);
        // The page itself still needs the token and keeps its own policy.
        let page = request(addr, "GET", "/", &[], None).await;
        assert_ne!(page.status, 200);
        // A query of nothing but junk gives the closed policy.
        let junk = format!("/sandbox/frame?{}", "connect=javascript:x&".repeat(500));
        let r = request(addr, "GET", &junk, &[], None).await;
        assert_eq!(r.status, 200);
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("connect-src 'none'"), "{csp}");
    });
}

#[test]
fn a_proxied_mcp_request_answers_in_the_result_and_leaves_no_thread() {
    common::run(async {
        let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
        let body = json!({
            "threadId": "t-side", "runId": "r-side", "messages": [],
            "forwardedProps": {"__proxiedMCPRequest": {
                "serverHash": "c31c417788059664abad85cc394a16d4",
                "method": "resources/read", "params": {"uri": "ui://agui-studio/dice"}}}
        })
        .to_string();
        let r = request(addr, "POST", "/api/agents/demo", &[], Some(body.as_bytes())).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let evs = events(&r.body);
        let last = evs.last().unwrap();
        assert_eq!(last["type"], "RUN_FINISHED", "{}", r.body);
        let contents = &last["result"]["contents"][0];
        assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
        assert!(contents["text"].as_str().unwrap().contains("ui/initialize"));
        // No thread was made or touched; the thread list is empty.
        let t = request(addr, "GET", "/api/threads/t-side", &[], None).await;
        assert_eq!(t.status, 404, "{}", t.body);
        let list = request(addr, "GET", "/api/threads", &[], None).await;
        assert_eq!(list.status, 200);
        assert!(!list.body.contains("t-side"), "{}", list.body);
        // A side run on a thread with a conversation leaves that conversation as it was.
        let turn = json!({"threadId": "t-real", "runId": "r-1",
            "messages": [{"id": "u1", "role": "user", "content": "hello"}]})
        .to_string();
        let r = request(addr, "POST", "/api/agents/demo", &[], Some(turn.as_bytes())).await;
        assert_eq!(r.status, 200);
        // The run's end is written after its last event was sent.
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let before = request(addr, "GET", "/api/threads/t-real", &[], None)
            .await
            .body;
        let side = body
            .replace("t-side", "t-real")
            .replace("r-side", "r-side-2");
        let r = request(addr, "POST", "/api/agents/demo", &[], Some(side.as_bytes())).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let after = request(addr, "GET", "/api/threads/t-real", &[], None)
            .await
            .body;
        assert_eq!(before, after);
        // An unknown resource is a RUN_ERROR, not a result.
        let bad = body
            .replace("ui://agui-studio/dice", "ui://nope")
            .replace("r-side", "r-side-3");
        let r = request(addr, "POST", "/api/agents/demo", &[], Some(bad.as_bytes())).await;
        let evs = events(&r.body);
        assert_eq!(evs.last().unwrap()["type"], "RUN_ERROR", "{}", r.body);
    });
}

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
fn a_proxied_mcp_request_answers_in_the_result_and_leaves_the_thread_as_it_was() {
    common::run(async {
        let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
        let side_run = |thread: &str, run: &str, uri: &str| {
            json!({
                "threadId": thread, "runId": run, "messages": [],
                "forwardedProps": {"__proxiedMCPRequest": {
                    "serverHash": "c31c417788059664abad85cc394a16d4",
                    "method": "resources/read", "params": {"uri": uri}}}
            })
            .to_string()
        };
        let turn = |thread: &str, run: &str, text: &str| {
            json!({"threadId": thread, "runId": run,
                "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}]})
            .to_string()
        };
        let post = |body: String| async move {
            request(addr, "POST", "/api/agents/demo", &[], Some(body.as_bytes())).await
        };
        // Only in a thread that shows the server's app: not in one there is none of (and none
        // is made), nor in one without that app.
        let dice = "ui://agui-studio/dice";
        let r = post(side_run("t-none", "r-s1", dice)).await;
        assert_eq!(r.status, 404, "{}", r.body);
        assert!(r.body.contains("no MCP App"), "{}", r.body);
        let t = request(addr, "GET", "/api/threads/t-none", &[], None).await;
        assert_eq!(t.status, 404, "{}", t.body);
        assert_eq!(post(turn("t-plain", "r-p", "hello")).await.status, 200);
        let r = post(side_run("t-plain", "r-s2", dice)).await;
        assert_eq!(r.status, 404, "{}", r.body);
        // A thread whose run showed the app: the view's HTML, and the conversation unchanged.
        let r = post(turn("t-app", "r-a", "mcp_app")).await;
        assert_eq!(r.status, 200);
        assert!(r.body.contains("mcp-apps"), "{}", r.body);
        // The run's end is written after its last event was sent.
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let before = request(addr, "GET", "/api/threads/t-app", &[], None)
            .await
            .body;
        let r = post(side_run("t-app", "r-s3", dice)).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let evs = events(&r.body);
        let last = evs.last().unwrap();
        assert_eq!(last["type"], "RUN_FINISHED", "{}", r.body);
        let contents = &last["result"]["contents"][0];
        assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
        assert!(contents["text"].as_str().unwrap().contains("ui/initialize"));
        let after = request(addr, "GET", "/api/threads/t-app", &[], None)
            .await
            .body;
        assert_eq!(before, after);
        // An unknown resource is a RUN_ERROR, not a result.
        let r = post(side_run("t-app", "r-s4", "ui://nope")).await;
        let evs = events(&r.body);
        assert_eq!(evs.last().unwrap()["type"], "RUN_ERROR", "{}", r.body);
    });
}

//! Who may see what, over real sockets: the page and the API behind `--auth-token` and
//! `--users`, the browser sign-in flow, ownership of threads, runs, observer events and
//! approvals, the Host and Origin guard, and the page's security headers.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use agui_studio::server::accounts::users_line;
use common::{request, start_server, wait_until, HttpConn, HttpResponse};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ALICE: &str = "alice-token-1";
const BOB: &str = "bob-token-2";

fn input(thread: &str, run: &str, text: &str, scenario: &str) -> Value {
    json!({
        "threadId": thread, "runId": run,
        "messages": [{"id": format!("u-{run}"), "role": "user", "content": text}],
        "forwardedProps": {"scenario": scenario},
    })
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// Run `body` on the demo agent as the holder of `token`, to the end.
async fn run_as(addr: SocketAddr, token: &str, body: &Value) -> HttpResponse {
    let auth = bearer(token);
    request(
        addr,
        "POST",
        "/api/agents/demo",
        &[("Authorization", &auth)],
        Some(body.to_string().as_bytes()),
    )
    .await
}

async fn get_as(addr: SocketAddr, token: &str, path: &str) -> HttpResponse {
    let auth = bearer(token);
    request(addr, "GET", path, &[("Authorization", &auth)], None).await
}

/// A server with users alice and bob (a users file written for the test).
async fn two_users(extra: &[&str]) -> (SocketAddr, agui_studio::server::AppState) {
    let path = std::env::temp_dir().join(format!("agui-users-{}.txt", uuid_like()));
    let text = format!(
        "# test users\n{}\n\n{}\n",
        users_line("alice", ALICE),
        users_line("bob", BOB)
    );
    std::fs::write(&path, text).unwrap();
    let path = path.to_string_lossy().into_owned();
    let mut args = vec!["--users", path.as_str(), "--demo-delay-ms", "0"];
    args.extend_from_slice(extra);
    start_server(&args).await
}

fn uuid_like() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

/// Send these exact request bytes and read the response to the end (`Connection: close`).
/// Written by hand for the Host guard's tests: the `Host` line under test is one an HTTP client
/// would derive from the address it connects to.
async fn raw(addr: SocketAddr, text: &str) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(text.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(common::TIMEOUT, s.read_to_end(&mut out))
        .await
        .expect("the server answered in time")
        .unwrap();
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

fn cookie_of(resp: &HttpResponse) -> String {
    let set = resp.header("set-cookie").expect("a Set-Cookie header");
    set.split(';').next().unwrap().trim().to_string()
}

#[test]
fn the_page_and_the_api_need_the_token() {
    common::run(async {
        let (addr, _) = start_server(&["--auth-token", "sesame", "--demo-delay-ms", "0"]).await;
        let r = run_as(
            addr,
            "sesame",
            &input("t-secret", "r-secret", "the secret plan", "chat"),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);

        for path in ["/", "/?thread=t-secret", "/no-such-page"] {
            let r = request(addr, "GET", path, &[], None).await;
            assert_eq!(r.status, 401, "{path}");
            assert!(r.body.contains("Sign in"), "{path}: {}", r.body);
            assert!(r.body.contains(r#"action="/auth/login""#));
            assert!(!r.body.contains("secret plan"), "{path} leaks: {}", r.body);
            assert!(!r.body.contains("t-secret") || path.contains("t-secret"));
        }
        let r = get_as(addr, "wrong", "/?thread=t-secret").await;
        assert_eq!(r.status, 401);
        assert!(!r.body.contains("secret plan"));
        for path in [
            "/api/threads",
            "/api/threads/t-secret",
            "/api/runs/r-secret",
        ] {
            assert_eq!(
                request(addr, "GET", path, &[], None).await.status,
                401,
                "{path}"
            );
        }
        assert_eq!(
            request(addr, "GET", "/healthz", &[], None).await.status,
            200
        );
        // With the token, the page is the studio with the thread.
        let r = get_as(addr, "sesame", "/?thread=t-secret").await;
        assert_eq!(r.status, 200);
        assert!(r.body.contains("secret plan"));
    })
}

#[test]
fn a_browser_signs_in_with_a_cookie_and_out_again() {
    common::run(async {
        let (addr, _) = start_server(&["--auth-token", "sesame", "--demo-delay-ms", "0"]).await;
        run_as(
            addr,
            "sesame",
            &input("t-mine", "r-mine", "my own words", "chat"),
        )
        .await;
        let form = "application/x-www-form-urlencoded";
        let origin = format!("http://{addr}");
        let login = |body: &'static str, extra: Vec<(&'static str, String)>| {
            let origin = origin.clone();
            async move {
                let mut headers: Vec<(&str, String)> =
                    vec![("Content-Type", form.to_string()), ("Origin", origin)];
                headers.extend(extra);
                let hs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
                post_exact(addr, "/auth/login", &hs, body).await
            }
        };
        let bad = login("token=nope&next=%2F", vec![]).await;
        assert_eq!(bad.status, 401);
        assert!(bad.body.contains("not valid"));
        assert!(bad.header("set-cookie").is_none());

        let ok = login("token=sesame&next=%2F%3Fthread%3Dt-mine", vec![]).await;
        assert_eq!(ok.status, 303, "{}", ok.body);
        assert_eq!(ok.header("location"), Some("/?thread=t-mine"));
        let set = ok.header("set-cookie").unwrap().to_string();
        for attr in ["HttpOnly", "SameSite=Strict", "Path=/"] {
            assert!(set.contains(attr), "{set}");
        }
        assert!(!set.contains("Secure"), "plain HTTP: {set}");
        let id = cookie_of(&ok);
        assert!(id.starts_with("agui_session=") && id.len() == "agui_session=".len() + 64);

        // Behind a TLS proxy the cookie is Secure; an open redirect is not followed.
        let tls = login(
            "token=sesame&next=https%3A%2F%2Fevil.example",
            vec![("X-Forwarded-Proto", "https".into())],
        )
        .await;
        assert!(tls.header("set-cookie").unwrap().contains("; Secure"));
        assert_eq!(tls.header("location"), Some("/"));

        let page = request(addr, "GET", "/?thread=t-mine", &[("Cookie", &id)], None).await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("my own words"));
        assert!(
            page.body.contains(r#"action="/auth/logout""#),
            "a sign-out button"
        );
        let api = request(addr, "GET", "/api/threads", &[("Cookie", &id)], None).await;
        assert_eq!(api.status, 200);
        assert!(api.body.contains("t-mine"));

        let out = post_exact(
            addr,
            "/auth/logout",
            &[("Cookie", &id), ("Origin", &format!("http://{addr}"))],
            "",
        )
        .await;
        assert_eq!(out.status, 303);
        assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
        let page = request(addr, "GET", "/?thread=t-mine", &[("Cookie", &id)], None).await;
        assert_eq!(page.status, 401);
        assert!(!page.body.contains("my own words"));

        // A sign-in form posted from another site is refused.
        let cross = post_exact(
            addr,
            "/auth/login",
            &[("Content-Type", form), ("Origin", "http://evil.example")],
            "token=sesame",
        )
        .await;
        assert_eq!(cross.status, 403);
    })
}

/// POST with these headers and body (its Content-Type, if any, among the headers).
async fn post_exact(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> HttpResponse {
    common::request_exact(addr, "POST", path, headers, Some(body.as_bytes())).await
}

#[test]
fn each_user_sees_only_their_own_threads_and_runs() {
    common::run(async {
        let (addr, state) = two_users(&[]).await;
        let r = run_as(
            addr,
            ALICE,
            &input("t-alice", "r-alice", "alice writes", "chat"),
        )
        .await;
        assert_eq!(r.status, 200);
        let r = run_as(addr, BOB, &input("t-bob", "r-bob", "bob writes", "chat")).await;
        assert_eq!(r.status, 200);

        let list = |token| async move { get_as(addr, token, "/api/threads").await.json() };
        let ids = |v: Value| -> Vec<String> {
            v["threads"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(ids(list(ALICE).await), vec!["t-alice"]);
        assert_eq!(ids(list(BOB).await), vec!["t-bob"]);

        for path in [
            "/api/threads/t-alice",
            "/api/runs/r-alice",
            "/api/runs/r-alice/events",
            "/api/ag-ui/state?threadId=t-alice",
            "/api/ag-ui/messages?threadId=t-alice",
            "/api/ag-ui/activities?threadId=t-alice",
        ] {
            let r = get_as(addr, BOB, path).await;
            assert_eq!(r.status, 404, "{path}: {}", r.body);
            assert!(!r.body.contains("alice writes"));
            assert_eq!(get_as(addr, ALICE, path).await.status, 200, "{path}");
        }
        // The "current thread" of the seed-004 views is one's own.
        let m = get_as(addr, BOB, "/api/ag-ui/messages").await.json();
        assert_eq!(m["threadId"], "t-bob");

        // The page: bob's list and bob's view of alice's thread.
        let page = get_as(addr, BOB, "/?thread=t-alice").await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("bob writes"), "bob's list");
        assert!(!page.body.contains("alice writes"), "{}", page.body);
        let page = get_as(addr, ALICE, "/").await;
        assert!(page.body.contains("alice writes") && !page.body.contains("bob writes"));

        // Bob cannot run on alice's thread, nor take over her run id.
        let before = get_as(addr, ALICE, "/api/threads/t-alice").await.body;
        let r = run_as(
            addr,
            BOB,
            &input("t-alice", "r-bob-2", "bob intrudes", "chat"),
        )
        .await;
        assert_eq!(r.status, 404, "{}", r.body);
        let r = run_as(
            addr,
            BOB,
            &input("t-bob", "r-alice", "bob intrudes", "chat"),
        )
        .await;
        assert_eq!(r.status, 409, "{}", r.body);
        let auth = bearer(BOB);
        let r = request(
            addr,
            "POST",
            "/api/ag-ui/message",
            &[("Authorization", &auth)],
            Some(br#"{"threadId":"t-alice","content":"bob intrudes"}"#),
        )
        .await;
        assert_eq!(r.status, 404, "{}", r.body);
        assert_eq!(
            get_as(addr, ALICE, "/api/threads/t-alice").await.body,
            before
        );
        let events = get_as(addr, ALICE, "/api/runs/r-alice/events").await.body;
        assert!(!events.contains("bob intrudes"));
        assert!(state.runs.active_count() == 0);
    })
}

#[test]
fn aborts_and_approvals_touch_only_ones_own_runs() {
    common::run(async {
        let (addr, state) = two_users(&[]).await;
        // Alice's run waits for an approval.
        let body = input("t-appr", "r-appr", "approval", "approval");
        let auth_a = bearer(ALICE);
        let mut alice = HttpConn::send(
            addr,
            "POST",
            "/api/agents/demo",
            &[("Authorization", &auth_a), ("Accept", "text/event-stream")],
            Some(body.to_string().as_bytes()),
        )
        .await;
        assert_eq!(alice.status, 200);
        wait_until(Duration::from_secs(5), "the agent waits", || {
            !state.runs.pending_waits().is_empty()
        })
        .await;
        let call = state.runs.pending_waits()[0].0.clone();
        let auth_b = bearer(BOB);
        let post_b = |path: &'static str, body: Value| {
            let auth_b = auth_b.clone();
            async move {
                request(
                    addr,
                    "POST",
                    path,
                    &[("Authorization", &auth_b)],
                    Some(body.to_string().as_bytes()),
                )
                .await
            }
        };
        let r = post_b(
            "/api/ag-ui/tool-result",
            json!({"toolCallId": call, "approved": true}),
        )
        .await;
        assert_eq!(r.status, 404, "{}", r.body);
        assert_eq!(
            state.runs.pending_waits().len(),
            1,
            "still waiting for alice"
        );
        // Bob's abort-all aborts none of alice's runs; her run id and thread are not found.
        let r = post_b("/api/ag-ui/abort", json!({})).await;
        assert_eq!(r.json()["aborted"], 0);
        let r = post_b("/api/ag-ui/abort", json!({"runId": "r-appr"})).await;
        assert_eq!(r.status, 404);
        let r = post_b("/api/ag-ui/abort", json!({"threadId": "t-appr"})).await;
        assert_eq!(r.status, 404);
        let r = post_b("/api/runs/r-appr/cancel", json!({})).await;
        assert_eq!(r.status, 404);
        assert!(state.runs.is_active("r-appr"));
        // Alice answers her own approval.
        let r = request(
            addr,
            "POST",
            "/api/ag-ui/tool-result",
            &[("Authorization", &auth_a)],
            Some(
                json!({"toolCallId": call, "approved": true})
                    .to_string()
                    .as_bytes(),
            ),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let mut text = Vec::new();
        while let Some(b) = alice.next_body_bytes().await {
            text.extend(b);
        }
        let text = String::from_utf8_lossy(&text);
        assert!(text.contains("RUN_FINISHED"), "{text}");
    })
}

/// Read an observer stream for `wait`, returning what came.
async fn observe(conn: &mut HttpConn, wait: Duration) -> String {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + wait;
    while let Ok(Some(b)) = tokio::time::timeout_at(deadline, conn.next_body_bytes()).await {
        out.extend(b);
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn the_observer_stream_shows_only_ones_own_runs() {
    common::run(async {
        let (addr, _) = two_users(&[]).await;
        let open = |token: &'static str, path: &'static str, last: Option<&'static str>| async move {
            let auth = bearer(token);
            let mut headers = vec![
                ("Authorization", auth.as_str()),
                ("Accept", "text/event-stream"),
            ];
            if let Some(l) = last {
                headers.push(("Last-Event-ID", l));
            }
            HttpConn::send(addr, "GET", path, &headers, None).await
        };
        let mut bob = open(BOB, "/api/ag-ui/stream", None).await;
        let mut alice = open(ALICE, "/api/ag-ui/stream", None).await;
        assert_eq!(bob.status, 200);
        // Both are subscribed once their `: connected` comment is through.
        assert!(observe(&mut bob, Duration::from_millis(300))
            .await
            .contains("connected"));
        assert!(observe(&mut alice, Duration::from_millis(300))
            .await
            .contains("connected"));
        run_as(
            addr,
            ALICE,
            &input("t-obs", "r-obs", "alice observed", "chat"),
        )
        .await;
        let seen_by_alice = observe(&mut alice, Duration::from_millis(800)).await;
        assert!(seen_by_alice.contains("r-obs"), "{seen_by_alice}");
        let seen_by_bob = observe(&mut bob, Duration::from_millis(300)).await;
        assert!(!seen_by_bob.contains("r-obs"), "{seen_by_bob}");
        assert!(!seen_by_bob.contains("alice observed"));
        // Resuming from an old id (a resync from snapshots) shows bob none of alice's threads,
        // nor does the filtered stream of her thread.
        let mut bob = open(BOB, "/api/ag-ui/stream", Some("1")).await;
        let resync = observe(&mut bob, Duration::from_millis(500)).await;
        assert!(!resync.contains("alice observed"), "{resync}");
        let mut bob = open(BOB, "/api/ag-ui/stream?threadId=t-obs", Some("1")).await;
        let resync = observe(&mut bob, Duration::from_millis(500)).await;
        assert!(!resync.contains("alice observed"), "{resync}");
    })
}

#[test]
fn a_foreign_host_is_misdirected() {
    common::run(async {
        let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
        run_as(addr, "", &input("t-h", "r-h", "hosted words", "chat")).await;
        for host in [
            "attacker.example",
            "attacker.example:80",
            "127.0.0.1.attacker.example",
        ] {
            let (status, text) = raw(
                addr,
                &format!("GET /api/threads HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
            )
            .await;
            assert_eq!(status, 421, "{host}: {text}");
            assert!(text.contains("misdirected_request") && !text.contains("t-h"));
            let (status, text) = raw(
                addr,
                &format!("GET /?thread=t-h HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
            )
            .await;
            assert_eq!(status, 421);
            assert!(!text.contains("hosted words"));
        }
        for host in [
            "localhost:3000".to_string(),
            addr.to_string(),
            "[::1]:1".into(),
        ] {
            let (status, _) = raw(
                addr,
                &format!("GET /api/threads HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
            )
            .await;
            assert_eq!(status, 200, "{host}");
        }
        // A name the server is told about.
        let (addr, _) = start_server(&["--allowed-host", "studio.example"]).await;
        let (status, _) = raw(
            addr,
            "GET /api/threads HTTP/1.1\r\nHost: studio.example:8080\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert_eq!(status, 200);
    })
}

#[test]
fn cross_site_and_non_json_writes_are_refused() {
    common::run(async {
        let (addr, state) = start_server(&["--demo-delay-ms", "0"]).await;
        let body = input("t-x", "r-x", "long 5000000", "long").to_string();
        let post = |headers: Vec<(&'static str, String)>, path: &'static str, body: String| async move {
            let hs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            post_exact(addr, path, &hs, &body).await
        };
        let evil = || ("Origin", "http://evil.example".to_string());
        let plain = || ("Content-Type", "text/plain".to_string());
        let jsn = || ("Content-Type", "application/json".to_string());
        // The "simple request" a foreign page can send without asking.
        let r = post(vec![evil(), plain()], "/api/agents/demo", body.clone()).await;
        assert_eq!(r.status, 403, "{}", r.body);
        assert!(r.body.contains("forbidden_origin"));
        let r = post(vec![evil(), jsn()], "/api/agents/demo", body.clone()).await;
        assert_eq!(r.status, 403);
        let r = post(
            vec![("Sec-Fetch-Site", "cross-site".into()), jsn()],
            "/api/agents/demo",
            body.clone(),
        )
        .await;
        assert_eq!(r.status, 403);
        // Same origin, but not JSON.
        let same = ("Origin", format!("http://{addr}"));
        let r = post(
            vec![same.clone(), plain()],
            "/api/agents/demo",
            body.clone(),
        )
        .await;
        assert_eq!(r.status, 415, "{}", r.body);
        assert!(r.body.contains("unsupported_media_type"));
        let r = post(
            vec![plain()],
            "/api/ag-ui/message",
            r#"{"content":"hi"}"#.into(),
        )
        .await;
        assert_eq!(r.status, 415);
        let r = post(vec![], "/api/ag-ui/message", r#"{"content":"hi"}"#.into()).await;
        assert_eq!(r.status, 415, "a body without a type");
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(state.runs.active_count(), 0, "nothing started");
        assert!(state.runs.thread_ids().is_empty(), "nothing stored");

        // Abort-all from a foreign page aborts nothing.
        let auth_free = HttpConn::send(
            addr,
            "POST",
            "/api/agents/demo",
            &[("Accept", "text/event-stream")],
            Some(body.as_bytes()),
        )
        .await;
        assert_eq!(auth_free.status, 200);
        let r = post(vec![evil(), plain()], "/api/ag-ui/abort", String::new()).await;
        assert_eq!(r.status, 403);
        let r = post(vec![evil()], "/api/ag-ui/abort", String::new()).await;
        assert_eq!(r.status, 403);
        assert!(state.runs.is_active("r-x"));
        // The same requests from this origin, as JSON, work.
        let r = post(vec![same.clone()], "/api/ag-ui/abort", String::new()).await;
        assert_eq!(r.status, 200, "{}", r.body);
        drop(auth_free);
        // An allow-listed origin may write.
        let (addr2, _) = start_server(&["--cors-origin", "http://app.example"]).await;
        let hs = [
            ("Origin", "http://app.example"),
            ("Content-Type", "application/json"),
        ];
        let r = post_exact(addr2, "/api/ag-ui/abort", &hs, "{}").await;
        assert_eq!(r.status, 200, "{}", r.body);
    })
}

#[test]
fn the_page_has_a_csp_whose_nonce_every_script_carries() {
    common::run(async {
        let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
        run_as(addr, "", &input("t-csp", "r-csp", "csp words", "chat")).await;
        for path in ["/", "/?thread=t-csp", "/missing"] {
            let r = request(addr, "GET", path, &[], None).await;
            let csp = r
                .header("content-security-policy")
                .expect("a CSP")
                .to_string();
            for part in [
                "object-src 'none'",
                "base-uri 'none'",
                "frame-ancestors 'none'",
                "'wasm-unsafe-eval'",
            ] {
                assert!(csp.contains(part), "{csp}");
            }
            let nonce = csp
                .split("'nonce-")
                .nth(1)
                .and_then(|s| s.split('\'').next())
                .expect("a nonce")
                .to_string();
            assert!(nonce.len() >= 16);
            let scripts: Vec<&str> = r.body.split("<script").skip(1).collect();
            assert!(!scripts.is_empty(), "{path}: the page has scripts");
            for s in scripts {
                let tag = s.split('>').next().unwrap();
                assert!(
                    tag.contains(&format!("nonce=\"{nonce}\"")),
                    "{path}: <script{tag}>"
                );
            }
            assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
            assert_eq!(r.header("referrer-policy"), Some("no-referrer"));
        }
        // A fresh nonce per response.
        let a = request(addr, "GET", "/", &[], None).await;
        let b = request(addr, "GET", "/", &[], None).await;
        assert_ne!(
            a.header("content-security-policy"),
            b.header("content-security-policy")
        );
        let api = request(addr, "GET", "/api/agents", &[], None).await;
        assert_eq!(api.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(api.header("referrer-policy"), Some("no-referrer"));
        let (addr, _) = start_server(&["--frame-ancestors", "'self'"]).await;
        let r = request(addr, "GET", "/", &[], None).await;
        assert!(r
            .header("content-security-policy")
            .unwrap()
            .contains("frame-ancestors 'self'"));
    })
}

#[test]
fn runs_and_observers_are_capped_per_user_not_across_users() {
    common::run(async {
        let (addr, _) = two_users(&[
            "--demo-delay-ms",
            "20",
            "--max-runs-per-user",
            "1",
            "--max-observers-per-user",
            "1",
        ])
        .await;
        let (a, b) = (bearer(ALICE), bearer(BOB));
        let long = input("t-a1", "r-a1", "long 100000", "long").to_string();
        let alice_run = common::HttpConn::send(
            addr,
            "POST",
            "/api/agents/demo",
            &[("Authorization", &a)],
            Some(long.as_bytes()),
        )
        .await;
        assert_eq!(alice_run.status, 200);
        let r = run_as(addr, ALICE, &input("t-a2", "r-a2", "chat", "chat")).await;
        assert_eq!(r.status, 429, "{}", r.body);
        assert_eq!(r.json()["error"]["code"], "too_many_runs");
        // Bob is not held back by Alice's runs.
        let r = run_as(addr, BOB, &input("t-b1", "r-b1", "chat", "chat")).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let alice_obs = common::HttpConn::send(
            addr,
            "GET",
            "/api/ag-ui/stream",
            &[("Authorization", &a)],
            None,
        )
        .await;
        assert_eq!(alice_obs.status, 200);
        let r = get_as(addr, ALICE, "/api/ag-ui/stream").await;
        assert_eq!(r.status, 429, "{}", r.body);
        let bob_obs = common::HttpConn::send(
            addr,
            "GET",
            "/api/ag-ui/stream",
            &[("Authorization", &b)],
            None,
        )
        .await;
        assert_eq!(bob_obs.status, 200);
        drop((alice_run, alice_obs, bob_obs));
    })
}

#[test]
fn the_sign_in_form_works_as_a_browser_posts_it_with_an_opaque_origin() {
    common::run(async {
        // With `Referrer-Policy: no-referrer`, Chromium posts a same-origin form with
        // `Origin: null`; its `Sec-Fetch-Site` says where the form was.
        let (addr, _) = start_server(&["--auth-token", "sesame"]).await;
        let form = ("Content-Type", "application/x-www-form-urlencoded");
        let ok = post_exact(
            addr,
            "/auth/login",
            &[form, ("Origin", "null"), ("Sec-Fetch-Site", "same-origin")],
            "token=sesame&next=%2F",
        )
        .await;
        assert_eq!(ok.status, 303, "{}", ok.body);
        assert!(ok.header("set-cookie").is_some());
        // An opaque origin from anywhere else (a sandboxed frame, a data: page) is refused.
        for site in [None, Some("cross-site"), Some("none")] {
            let mut headers = vec![form, ("Origin", "null")];
            if let Some(s) = site {
                headers.push(("Sec-Fetch-Site", s));
            }
            let r = post_exact(addr, "/auth/login", &headers, "token=sesame&next=%2F").await;
            assert_eq!(r.status, 403, "{site:?}: {}", r.body);
        }
    })
}

/// With no `--cors-origin`, API responses carry no CORS header at all (no `vary`, no
/// `access-control-*`: there is no origin they could allow); an allow-listed origin gets its
/// `access-control-allow-origin` and the run-events header exposed. An SSE response then has
/// six headers, the room hyper's kept `HeaderMap` has for each open connection.
#[test]
fn cors_headers_come_only_with_configured_origins() {
    common::run(async {
        let (addr, _) = start_server(&["--demo-delay-ms", "0"]).await;
        let origin = [("Origin", "http://app.example")];
        let r = request(addr, "GET", "/api/agents", &origin, None).await;
        assert_eq!(r.status, 200, "{}", r.body);
        for (name, _) in &r.headers {
            assert!(
                name != "vary" && !name.starts_with("access-control-"),
                "{name} without a configured origin: {:?}",
                r.headers
            );
        }
        let body = input("t-hdr", "r-hdr", "headers", "chat").to_string();
        let sse = request(
            addr,
            "POST",
            "/api/agents/demo",
            &[("Accept", "text/event-stream")],
            Some(body.as_bytes()),
        )
        .await;
        assert_eq!(sse.status, 200, "{}", sse.body);
        let kept: Vec<_> = sse
            .headers
            .iter()
            .map(|(k, _)| k.as_str())
            // hyper's own, and this client's `Connection: close` answered.
            .filter(|k| !matches!(*k, "date" | "transfer-encoding" | "connection"))
            .collect();
        assert!(
            kept.len() <= 6,
            "an SSE response with {} headers: {kept:?}",
            kept.len()
        );
        let (addr2, _) = start_server(&["--cors-origin", "http://app.example"]).await;
        let r = request(addr2, "GET", "/api/agents", &origin, None).await;
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("http://app.example")
        );
        assert!(
            r.header("access-control-expose-headers")
                .is_some_and(|h| h.contains("x-agui-run-events")),
            "{:?}",
            r.headers
        );
    })
}

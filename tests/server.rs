//! The server over a real loopback socket: health, the server-rendered page, and 404s.
#![cfg(feature = "ssr")]

mod common;

use agui_studio::server::config::Cli;
use agui_studio::server::{app, AppState};
use clap::Parser;
use common::get;

/// Start the app on 127.0.0.1 with a free port; the task ends with the test runtime.
async fn start() -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let cli = Cli::parse_from(["agui-studio", "--demo-delay-ms", "0", "--db", ":memory:"]);
    let state = AppState::new(&cli.serve).await.unwrap();
    tokio::spawn(async move { axum::serve(listener, app(state)).await.unwrap() });
    addr
}

// One test, one runtime, one server: servers rendering pages on several runtimes at once in
// one process (the test harness runs tests in parallel, each on its own runtime) were seen to
// hang now and then (about 1 run in 15); a deployed server has one runtime.
#[tokio::test]
async fn health_home_page_and_404() {
    let addr = start().await;

    let (status, body) = get(addr, "/healthz").await;
    assert_eq!(status, 200);
    assert!(body.contains(r#""status":"ok""#), "{body}");

    // The home page is server-rendered.
    let (status, body) = get(addr, "/").await;
    assert_eq!(status, 200);
    assert!(
        body.contains(r#"<h1 class="brand-name">agui-studio</h1>"#),
        "{body}"
    );
    assert!(body.contains("Page loading"));

    // An unknown path is a 404 page.
    let (status, body) = get(addr, "/definitely/not/here").await;
    assert_eq!(status, 404);
    assert!(body.contains("Not found"), "{body}");
}

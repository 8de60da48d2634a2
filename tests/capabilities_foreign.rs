//! The capabilities of agents that are not this server's own doing, checked against
//! behaviour: the LLM agent's `tools.items` against the tools its model is offered (the
//! reference MCP server's included, started over stdio), and the proxy's — a foreign agent's
//! published capabilities read (from a second server), one that publishes none (a 404) or an
//! endless listing described without inventing anything, the server responsive meanwhile.
#![cfg(feature = "ssr")]

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use common::caps::{body, caps_of, events, has};
use common::model::{delta, model_server};
use common::start_server;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

#[test]
fn the_llm_agent_declares_exactly_the_tools_its_model_is_offered() {
    let entry = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("end2end/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        entry.is_file(),
        "{}: run scripts/studio.sh setup",
        entry.display()
    );
    let node = std::env::var("AGUI_TEST_NODE").unwrap_or_else(|_| "node".into());
    let everything = format!("everything=stdio:{node} {} stdio", entry.display());
    common::run(async {
        let reply = vec![delta(
            json!({"role": "assistant", "content": "ok"}),
            Some("stop"),
        )];
        let (model, seen) = model_server(vec![reply]).await;
        let llm = format!("gpt=http://{model}/v1,model=scripted");
        let (addr, _) = start_server(&["--llm", &llm, "--mcp", &everything]).await;
        let caps = caps_of(addr, "gpt").await;
        let mut declared: Vec<String> = caps["tools"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert!(
            declared.iter().any(|n| n == "mcp__everything__echo"),
            "{declared:?}"
        );
        assert!(declared.iter().any(|n| n == "calculate"), "{declared:?}");
        assert_eq!(caps["execution"]["maxIterations"], 8);
        let run = events(addr, "gpt", &body("t-llm", "r-llm", "hello")).await;
        assert_eq!(run.last().unwrap()["type"], "RUN_FINISHED");
        let sent = seen.lock().unwrap()[0].clone();
        let mut offered: Vec<String> = sent["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_string())
            .collect();
        declared.sort();
        offered.sort();
        assert_eq!(declared, offered);
        // The run ended on the model's own answer: reasoning is declared, not required.
        assert_eq!(caps["humanInTheLoop"]["interrupts"], false);
    });
}

/// A loopback server answering every request with `answer` (headers and body as given), or
/// with an endless body when `answer` is None. Serves a bounded number of connections.
async fn raw_server(answer: Option<String>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        for _ in 0..8 {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = sock.read(&mut buf).await;
                match answer {
                    Some(a) => {
                        let _ = sock.write_all(a.as_bytes()).await;
                    }
                    None => {
                        let _ = sock
                            .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"agents\": [")
                            .await;
                        let item = b"{\"id\": \"x\", \"capabilities\": {}},";
                        // At most ~20 s of writing (it is read for 5 s at most).
                        for _ in 0..20_000 {
                            if sock.write_all(item).await.is_err() {
                                return;
                            }
                            tokio::time::sleep(Duration::from_millis(1)).await;
                        }
                    }
                }
            });
        }
    });
    addr
}

#[test]
fn the_proxy_reads_published_capabilities_and_invents_none() {
    common::run(async {
        let (foreign, _) = start_server(&["--demo-delay-ms", "0"]).await;
        let published = caps_of(foreign, "demo").await;
        let silent = raw_server(Some(
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into(),
        ))
        .await;
        let endless = raw_server(None).await;
        let up = format!("up=http://{foreign}/api/agents/demo");
        let quiet = format!("quiet=http://{silent}/agents/q");
        let flood = format!("flood=http://{endless}/agents/x");
        let (addr, _) = start_server(&["--proxy", &up, "--proxy", &quiet, "--proxy", &flood]).await;

        // Read in the background: the listing answers at once meanwhile.
        let mut caps = caps_of(addr, "up").await;
        for _ in 0..200 {
            if caps.get("reasoning").is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
            caps = caps_of(addr, "up").await;
        }
        for group in [
            "tools",
            "reasoning",
            "multimodal",
            "multiAgent",
            "humanInTheLoop",
            "execution",
        ] {
            assert_eq!(caps[group], published[group], "{group}");
        }
        assert_eq!(caps["identity"]["type"], "proxy");
        assert_eq!(caps["identity"]["metadata"]["foreign"]["type"], "demo");
        // How it reaches us is ours: resumable here, whatever the foreign agent said.
        assert_eq!(caps["transport"]["resumable"], true);
        // And a claim read from the foreign agent holds through the proxy.
        let run = events(addr, "up", &body("t-up", "r-up", "reasoning")).await;
        assert!(has(&run, "REASONING_MESSAGE_CONTENT"));

        // An agent that publishes nothing, and one whose listing never ends: what the proxy
        // cannot know is left out, and the server stays responsive.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let started = tokio::time::Instant::now();
        for id in ["quiet", "flood"] {
            let caps = caps_of(addr, id).await;
            let mut groups: Vec<&String> = caps.as_object().unwrap().keys().collect();
            groups.sort();
            assert_eq!(
                groups,
                ["custom", "identity", "state", "transport"],
                "{id}: {caps}"
            );
            assert_eq!(caps["state"], json!({"persistentState": true}));
        }
        assert!(started.elapsed() < Duration::from_secs(2));
        // The endless listing is dropped at its bounds (time or size); nothing was taken from it.
        tokio::time::sleep(agui_studio::server::agents::proxy::caps::FETCH_TIMEOUT).await;
        assert!(caps_of(addr, "flood").await.get("tools").is_none());
    });
}

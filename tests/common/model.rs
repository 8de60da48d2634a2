//! A scripted OpenAI-compatible model server on loopback, standing in for the model API:
//! answer `i` of its script to request `i` (streamed Chat Completions chunks), each request's
//! JSON body recorded. Bounded: one request per script entry, 4 MB and 10 s per request.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A scripted OpenAI-compatible model server: answer `i` of `script` (SSE `data` chunks) to
/// request `i`, recording each request's JSON body.
pub async fn model_server(script: Vec<Vec<Value>>) -> (SocketAddr, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorded = seen.clone();
    tokio::spawn(async move {
        for chunks in script {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let mut buf = Vec::new();
            let mut tmp = [0u8; 16 * 1024];
            // Bounded: one request, at most 4 MB, read within 10 s.
            let body = tokio::time::timeout(Duration::from_secs(10), async {
                loop {
                    let n = socket.read(&mut tmp).await.ok()?;
                    if n == 0 || buf.len() > 4 << 20 {
                        return None;
                    }
                    buf.extend_from_slice(&tmp[..n]);
                    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
                    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                    let len: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        return serde_json::from_slice::<Value>(&buf[end + 4..end + 4 + len]).ok();
                    }
                }
            })
            .await;
            recorded
                .lock()
                .unwrap()
                .push(body.ok().flatten().unwrap_or(Value::Null));
            let mut sse = String::new();
            for c in chunks {
                sse.push_str(&format!("data: {c}\n\n"));
            }
            sse.push_str("data: [DONE]\n\n");
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                sse.len()
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(sse.as_bytes()).await;
            let _ = socket.flush().await;
        }
    });
    (addr, seen)
}

pub fn delta(d: Value, finish: Option<&str>) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "model": "scripted",
           "choices": [{"index": 0, "delta": d, "finish_reason": finish}]})
}

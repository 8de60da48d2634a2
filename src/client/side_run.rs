//! Side runs: a run that is not part of the conversation, made to get an answer from the agent
//! (an MCP App's `resources/read` or `tools/call`, proxied by the agent when its request comes
//! in `forwardedProps.__proxiedMCPRequest`, as the official AG-UI MCP Apps middleware does).
//! The answer is the run's `RUN_FINISHED.result`; a `RUN_ERROR`, a failed stream or a stream
//! that ends without a terminal event is an error.
//!
//! Bounded: at most [`MAX_ANSWER_BYTES`] of response, at most [`TIMEOUT_MS`] of waiting.

use serde_json::{json, Value};

/// The largest response read from a side run.
pub const MAX_ANSWER_BYTES: usize = 8 << 20;
/// How long a side run may take.
pub const TIMEOUT_MS: u32 = 30_000;

/// The `forwardedProps` of a proxied MCP request.
pub fn proxied_mcp_request(
    server_hash: Option<&str>,
    server_id: Option<&str>,
    method: &str,
    params: Value,
) -> Value {
    let mut req = json!({ "method": method, "params": params });
    if let Some(h) = server_hash {
        req["serverHash"] = json!(h);
    }
    if let Some(id) = server_id {
        req["serverId"] = json!(id);
    }
    json!({ "__proxiedMCPRequest": req })
}

/// Run the agent at `url` once with `forwarded_props` and no new message; its result.
#[cfg(feature = "hydrate")]
pub async fn side_run(
    url: &str,
    headers: &[(String, String)],
    thread_id: &str,
    forwarded_props: Value,
) -> Result<Value, String> {
    use std::cell::RefCell;
    use std::rc::Rc;

    use crate::client::transport::{post_stream, random_id, sleep_ms};
    use crate::protocol::event::EventKind;
    use crate::protocol::pipeline::{Pipeline, PipelineOptions};
    use crate::protocol::types::RunAgentInput;

    let mut input = RunAgentInput::new(thread_id.to_string(), format!("run-{}", random_id()));
    input.forwarded_props = forwarded_props;
    let body = serde_json::to_string(&input).map_err(|e| e.to_string())?;
    let pipeline = Rc::new(RefCell::new(Pipeline::for_input(
        &input,
        PipelineOptions::default(),
    )));
    let answer: Rc<RefCell<Option<Result<Value, String>>>> = Rc::default();
    let controller = web_sys::AbortController::new().map_err(|_| "no AbortController")?;
    let signal = controller.signal();
    let read = Rc::new(RefCell::new(0usize));
    let take = |delivered: Vec<crate::protocol::pipeline::Delivered>,
                answer: &RefCell<Option<Result<Value, String>>>| {
        for d in delivered {
            match d.event.kind {
                EventKind::RunFinished { result, .. } => {
                    *answer.borrow_mut() = Some(Ok(result.unwrap_or(Value::Null)));
                }
                EventKind::RunError { message, .. } => {
                    *answer.borrow_mut() = Some(Err(message));
                }
                _ => {}
            }
        }
    };
    let timer = {
        let controller = controller.clone();
        let answer = answer.clone();
        async move {
            sleep_ms(TIMEOUT_MS).await;
            if answer.borrow().is_none() {
                *answer.borrow_mut() = Some(Err(format!(
                    "the agent did not answer within {} s",
                    TIMEOUT_MS / 1000
                )));
                controller.abort();
            }
        }
    };
    leptos::task::spawn_local(timer);
    let result = post_stream(
        url,
        &body,
        headers,
        &signal,
        |_| {},
        |bytes| {
            *read.borrow_mut() += bytes.len();
            if *read.borrow() > MAX_ANSWER_BYTES {
                *answer.borrow_mut() = Some(Err(format!(
                    "the answer is larger than {} MB",
                    MAX_ANSWER_BYTES >> 20
                )));
                controller.abort();
                return;
            }
            let delivered = pipeline.borrow_mut().push_bytes(bytes);
            take(delivered, &answer);
        },
    )
    .await;
    let delivered = pipeline.borrow_mut().finish();
    take(delivered, &answer);
    let settled = answer.borrow_mut().take();
    match settled {
        Some(a) => a,
        None => Err(match (result, pipeline.borrow().error()) {
            (Err(e), _) => e.to_string(),
            (_, Some(e)) => e.to_string(),
            _ => "the agent's stream ended without a result".to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxied_request_shape() {
        let v = proxied_mcp_request(Some("h1"), None, "resources/read", json!({"uri": "ui://a"}));
        assert_eq!(
            v,
            json!({"__proxiedMCPRequest": {"method": "resources/read", "params": {"uri": "ui://a"}, "serverHash": "h1"}})
        );
    }
}

//! Opening a proxied run: the request to the foreign agent, and the errors its refusal becomes.

use std::error::Error as _;
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::Response;

use super::{feed, spec, ProxyAgent};
use crate::protocol::compat::prepare_request;
use crate::protocol::pipeline::binary::BodyKind;
use crate::server::agents::{AgentError, RunContext};
use crate::wire::RunErrorCode;

/// How much of an error response's body is read for the message.
const BODY_EXCERPT: usize = 300;

impl ProxyAgent {
    pub(super) async fn open(&self, ctx: &RunContext) -> Result<(Response, BodyKind), AgentError> {
        let input = serde_json::to_value(&ctx.input).map_err(|e| {
            AgentError::failed(
                crate::wire::RunErrorCode::InternalError,
                format!("input: {e}"),
            )
        })?;
        let (body, warnings) = prepare_request(input, None);
        for w in warnings {
            tracing::debug!(run = %ctx.run_id(), "proxy request: {w}");
        }
        let request = self
            .client
            .post(self.spec.url.clone())
            .headers(self.spec.headers.clone())
            .header(
                ACCEPT,
                HeaderValue::from_static(feed::accept(self.spec.transport)),
            )
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .body(body.to_string());
        tracing::info!(run = %ctx.run_id(), agent = %self.spec.id, host = %self.host(), "proxying a run");
        let response = tokio::select! {
            _ = ctx.cancel.cancelled() => return Err(AgentError::Cancelled),
            r = request.send() => r.map_err(|e| self.request_error(e))?,
        };
        let status = response.status();
        if !status.is_success() {
            let excerpt = tokio::select! {
                _ = ctx.cancel.cancelled() => return Err(AgentError::Cancelled),
                x = excerpt(response) => x,
            };
            let location = if status.is_redirection() {
                " (redirects are not followed: configure the final URL)"
            } else {
                ""
            };
            return Err(AgentError::failed(
                RunErrorCode::ForeignHttpError,
                format!(
                    "the foreign agent at {} answered HTTP {status}{location}{}",
                    self.host(),
                    if excerpt.is_empty() {
                        String::new()
                    } else {
                        format!(": {excerpt}")
                    }
                ),
            ));
        }
        let Some(feed) = feed::detect(response.headers()) else {
            let got = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("no Content-Type")
                .to_string();
            let excerpt = tokio::select! {
                _ = ctx.cancel.cancelled() => return Err(AgentError::Cancelled),
                x = excerpt(response) => x,
            };
            let asked = match self.spec.transport {
                spec::Transport::Sse => "text/event-stream",
                spec::Transport::Proto => "application/vnd.ag-ui.event+proto or text/event-stream",
            };
            return Err(AgentError::failed(
                RunErrorCode::ForeignNotSse,
                format!(
                    "the foreign agent at {} did not answer with an event stream ({asked}), but with {got}{}",
                    self.host(),
                    if excerpt.is_empty() { String::new() } else { format!(": {excerpt}") }
                ),
            ));
        };
        if self.spec.transport == spec::Transport::Proto && feed == BodyKind::Sse {
            tracing::info!(run = %ctx.run_id(), host = %self.host(), "asked for protobuf, the foreign agent answered SSE; reading SSE");
        }
        Ok((response, feed))
    }

    fn request_error(&self, e: reqwest::Error) -> AgentError {
        let cause = root_cause(&e);
        if e.is_timeout() {
            AgentError::failed(
                RunErrorCode::ForeignTimeout,
                format!(
                    "the foreign agent at {} did not answer in time: {cause}",
                    self.host()
                ),
            )
        } else if e.is_connect() {
            AgentError::failed(
                RunErrorCode::ForeignUnreachable,
                format!(
                    "could not connect to the foreign agent at {}: {cause}",
                    self.host()
                ),
            )
        } else {
            AgentError::failed(
                RunErrorCode::ForeignUnreachable,
                format!(
                    "the request to the foreign agent at {} failed: {cause}",
                    self.host()
                ),
            )
        }
    }
}

/// The start of a response body, on one line, for an error message. Bounded in size and time:
/// the body is the foreign server's and may be endless.
async fn excerpt(response: Response) -> String {
    let mut body = response.bytes_stream();
    let mut bytes = Vec::new();
    let read = async {
        while let Some(Ok(chunk)) = body.next().await {
            bytes.extend_from_slice(&chunk);
            if bytes.len() >= BODY_EXCERPT {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), read).await;
    let text = String::from_utf8_lossy(&bytes);
    let mut line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > BODY_EXCERPT {
        line = line.chars().take(BODY_EXCERPT).collect::<String>() + "…";
    }
    line
}

/// The innermost cause ("Connection refused (os error 111)"): reqwest's own message names the
/// full URL, whose query may carry a key.
pub(super) fn root_cause(e: &reqwest::Error) -> String {
    let Some(mut cause) = e.source() else {
        return "the request failed".into();
    };
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

//! A proxy to a foreign AG-UI agent (LangGraph, CrewAI, Mastra, Pydantic AI, the official SDKs…):
//! the run's input is POSTed to the foreign URL and its SSE answer (or protobuf frames, with
//! `transport=proto`) goes through this crate's client pipeline (decoder → dialects → enforcement → chunks → verifier → reducer) before the events are
//! re-emitted as our own, so foreign runs get the same translation, verification and persistence
//! as local ones. Error codes and behaviour are described in `docs/proxy.md`.
//!
//! The foreign agent is not trusted: redirects are not followed (they would carry the
//! configured headers elsewhere), and its response is bounded in total bytes and events
//! (`--max-upstream-bytes`/`-events`, code `RunErrorCode::UpstreamLimit`), not only per line.

pub mod caps;
mod feed;
mod quirks;
pub mod spec;

use std::error::Error as _;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::StreamExt;
use reqwest::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::{Client, Response, Url};
use serde_json::json;

use self::quirks::Quirks;
use super::upstream::UpstreamMeter;
use super::{Agent, AgentError, AgentInfo, RunContext, RunEnd};
use crate::protocol::compat::prepare_request;
use crate::protocol::event::EventKind;
use crate::protocol::pipeline::binary::BodyKind;
use crate::protocol::pipeline::{Delivered, Pipeline, PipelineOptions};
use crate::protocol::types::{RunOutcome, TokenUsage};
use crate::wire::RunErrorCode;

pub use spec::ProxySpec;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A model may think for minutes between tokens, but a silent socket for this long is dead.
const IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// How long to wait for the foreign server to close its stream after its terminal event, to
/// catch late events (a late `RUN_ERROR` is legal, anything else is a protocol error) without
/// holding our run open for a server that keeps the connection alive.
const AFTER_TERMINAL_GRACE: Duration = Duration::from_secs(1);
/// How much of an error response's body is read for the message.
const BODY_EXCERPT: usize = 300;

/// A foreign agent configured by `--proxy ID=URL[,header=…]`.
pub struct ProxyAgent {
    spec: ProxySpec,
    client: Client,
    /// The foreign agent's published capabilities, read in the background.
    foreign: std::sync::Arc<caps::Foreign>,
}

impl ProxyAgent {
    /// Fails only when the platform's TLS setup cannot make an HTTP client.
    pub fn new(spec: ProxySpec) -> reqwest::Result<Self> {
        let mut builder = Client::builder()
            .user_agent(concat!(
                "agui-studio/",
                env!("CARGO_PKG_VERSION"),
                " (AG-UI proxy)"
            ))
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(IDLE_TIMEOUT)
            // A redirect would re-send the configured (secret) headers to wherever it points,
            // and 301/302 would turn the POST into a GET: report it instead.
            .redirect(reqwest::redirect::Policy::none());
        if is_loopback(&spec.url) {
            // An HTTP(S)_PROXY meant for the outside world must not capture a local agent.
            builder = builder.no_proxy();
        }
        let client = builder.build()?;
        let foreign = std::sync::Arc::new(caps::Foreign::default());
        foreign.refresh(&client, &spec);
        Ok(ProxyAgent {
            spec,
            client,
            foreign,
        })
    }

    /// `host[:port]` of the foreign agent: what logs and messages name (never the full URL,
    /// whose query may hold a key).
    fn host(&self) -> String {
        host_of(&self.spec.url)
    }

    async fn open(&self, ctx: &RunContext) -> Result<(Response, BodyKind), AgentError> {
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

    async fn relay(
        &self,
        ctx: &mut RunContext,
        response: Response,
        feed: BodyKind,
    ) -> Result<RunEnd, AgentError> {
        let mut pipeline = Pipeline::for_input(&ctx.input, PipelineOptions::default());
        pipeline.expect_body(feed);
        pipeline.conversation.state_limits = ctx.settings.state_limits;
        let end = self.pump(ctx, &mut pipeline, response).await;
        // Each distinct warning once, with a count: a legacy agent warns on every event.
        let mut counts = std::collections::BTreeMap::<&str, usize>::new();
        for w in &pipeline.warnings {
            *counts.entry(w.as_str()).or_default() += 1;
        }
        for (w, n) in counts {
            tracing::warn!(run = %ctx.run_id(), host = %self.host(), times = n, "foreign stream: {w}");
        }
        end
    }

    async fn pump(
        &self,
        ctx: &mut RunContext,
        pipeline: &mut Pipeline,
        response: Response,
    ) -> Result<RunEnd, AgentError> {
        let mut relay = Relay {
            quirks: Quirks::for_input(&ctx.input),
            ..Relay::default()
        };
        let who = format!("the foreign agent at {}", self.host());
        let mut meter = UpstreamMeter::new(
            ctx.settings.upstream,
            format!("the foreign agent at {}", self.host()),
        );
        let mut body = response.bytes_stream();
        let mut grace: Option<tokio::time::Instant> = None;
        loop {
            let next = tokio::select! {
                _ = ctx.cancel.cancelled() => return Err(AgentError::Cancelled),
                _ = sleep_until(grace) => break,
                n = body.next() => n,
            };
            let (delivered, ended, failure) = match next {
                Some(Ok(bytes)) => {
                    // Counted before decoding: nothing past the limit is parsed or relayed.
                    meter.bytes(bytes.len())?;
                    (pipeline.push_bytes(&bytes), false, None)
                }
                Some(Err(e)) => {
                    // Whatever the broken connection left undelivered is lost; what came is
                    // forwarded, then the run ends as truncated (or as it already ended).
                    let delivered = pipeline.finish();
                    meter.events(delivered.len())?;
                    relay.forward(ctx, delivered).await?;
                    self.check(pipeline, &relay)?;
                    if relay.end.is_some() {
                        break;
                    }
                    let cause = root_cause(&e);
                    return Err(if e.is_timeout() {
                        AgentError::failed(
                            RunErrorCode::ForeignTimeout,
                            format!(
                                "the foreign agent at {} sent nothing for {} s",
                                self.host(),
                                IDLE_TIMEOUT.as_secs()
                            ),
                        )
                    } else {
                        AgentError::failed(
                            RunErrorCode::ForeignStreamTruncated,
                            format!(
                                "the connection to the foreign agent at {} broke before the run ended: {cause}",
                                self.host()
                            ),
                        )
                    });
                }
                None => {
                    let delivered = pipeline.finish();
                    let cut = pipeline.cut_inside_frame().map(|e| {
                        AgentError::failed(
                            RunErrorCode::ForeignStreamTruncated,
                            format!("{who}: {e}"),
                        )
                    });
                    (delivered, true, cut)
                }
            };
            meter.events(delivered.len())?;
            relay.forward(ctx, delivered).await?;
            self.check(pipeline, &relay)?;
            // Bytes after the foreign terminal event that do not make a frame are not a reason
            // to fail a run that has ended; anything else is.
            if let Some(failure) = failure {
                if !(ended && relay.end.is_some()) {
                    return Err(failure);
                }
            }
            if ended {
                break;
            }
            if relay.end.is_some() && grace.is_none() {
                grace = Some(tokio::time::Instant::now() + AFTER_TERMINAL_GRACE);
            }
        }
        match relay.end {
            Some(end) => end,
            None if !relay.started => Err(AgentError::failed(
                RunErrorCode::ForeignStreamTruncated,
                format!(
                    "the foreign agent at {} ended its stream without starting a run",
                    self.host()
                ),
            )),
            None => Err(AgentError::failed(
                RunErrorCode::ForeignStreamTruncated,
                format!(
                    "the foreign agent at {} ended its stream without RUN_FINISHED or RUN_ERROR",
                    self.host()
                ),
            )),
        }
    }

    /// A fatal pipeline error or a second run ends ours with a protocol error.
    fn check(&self, pipeline: &Pipeline, relay: &Relay) -> Result<(), AgentError> {
        // An event the reducer refused (state past the limits) keeps its stable code.
        if let (Some(e), Some(code)) = (pipeline.error(), pipeline.error_code()) {
            return Err(AgentError::failed(
                RunErrorCode::from_wire(code),
                format!("the foreign agent at {}: {e}", self.host()),
            ));
        }
        let error = pipeline
            .error()
            .map(str::to_string)
            .or_else(|| relay.violation.clone());
        match error {
            // A line or frame past its size limit: a bound, not a protocol question.
            Some(e) if pipeline.exceeded_a_bound() => Err(AgentError::failed(
                RunErrorCode::UpstreamLimit,
                format!(
                    "the foreign agent at {} sent too much at once: {e}",
                    self.host()
                ),
            )),
            Some(e) => Err(AgentError::failed(
                RunErrorCode::ForeignProtocolError,
                format!(
                    "the foreign agent at {} broke the protocol: {e}",
                    self.host()
                ),
            )),
            None => Ok(()),
        }
    }
}

/// What the foreign stream has said about its run so far.
#[derive(Default)]
struct Relay {
    started: bool,
    /// Set by the foreign terminal event; a late `RUN_ERROR` replaces a `RUN_FINISHED`.
    end: Option<Result<RunEnd, AgentError>>,
    /// A rule of the proxy (not of the verifier) the stream broke.
    violation: Option<String>,
    /// Tool calls started in the run and not answered by a `TOOL_CALL_RESULT`, in order.
    unanswered: Vec<String>,
    /// Framework quirks repaired before an event is relayed.
    quirks: Quirks,
}

impl Relay {
    /// Re-emit verified foreign events as ours. The lifecycle events are the runtime's: the
    /// foreign `RUN_STARTED` is swallowed (ours was sent), its terminal event becomes how
    /// `run` returns.
    async fn forward(
        &mut self,
        ctx: &mut RunContext,
        delivered: Vec<Delivered>,
    ) -> Result<(), AgentError> {
        for Delivered { mut event, .. } in delivered {
            if self.violation.is_some() {
                break;
            }
            let (repaired, before) = self.quirks.repair(&mut event);
            if let Some(repaired) = repaired {
                tracing::warn!(run = %ctx.run_id(), "foreign stream: {repaired}");
            }
            if let Some(before) = before {
                ctx.emit(before).await?;
            }
            match event.kind {
                EventKind::RunStarted {
                    ref thread_id,
                    ref run_id,
                    ..
                } => {
                    if self.started {
                        self.violation = Some(
                            "it started a second run in one response; the proxy relays exactly one run per request"
                                .into(),
                        );
                        break;
                    }
                    self.started = true;
                    if thread_id != ctx.thread_id() || run_id != ctx.run_id() {
                        // The client asked under our ids; the foreign ones are only logged.
                        tracing::warn!(
                            run = %ctx.run_id(),
                            foreign_thread = %thread_id,
                            foreign_run = %run_id,
                            "the foreign agent answered under other thread/run ids; relaying under ours"
                        );
                    }
                }
                EventKind::RunFinished {
                    result,
                    outcome,
                    usage,
                    ..
                } => {
                    self.end = Some(Ok(RunEnd {
                        outcome: self.name_pending(outcome),
                        result,
                        usage: merge_usage(usage),
                    }));
                }
                EventKind::RunError { message, code, .. } => {
                    let code = code
                        .filter(|c| !c.trim().is_empty())
                        .unwrap_or_else(|| RunErrorCode::ForeignRunError.to_string());
                    self.end = Some(Err(AgentError::failed(
                        RunErrorCode::from_wire(&code),
                        message,
                    )));
                }
                EventKind::ToolCallStart {
                    ref tool_call_id, ..
                } => {
                    self.unanswered.push(tool_call_id.clone());
                    ctx.emit(event).await?
                }
                EventKind::ToolCallResult {
                    ref tool_call_id, ..
                } => {
                    self.unanswered.retain(|id| id != tool_call_id);
                    ctx.emit(event).await?
                }
                _ => ctx.emit(event).await?,
            }
        }
        Ok(())
    }

    /// A success that names no pending tool calls leaves the consumer to derive them from the
    /// stream (1.1); the proxy has seen the stream, so it names them, and every consumer of
    /// ours (the thread store, the UI) sees the frontend tool calls it must answer.
    fn name_pending(&self, outcome: Option<RunOutcome>) -> Option<RunOutcome> {
        let named = match &outcome {
            None => false,
            Some(RunOutcome::Success {
                pending_tool_call_ids,
            }) => pending_tool_call_ids
                .as_ref()
                .is_some_and(|v| !v.is_empty()),
            Some(_) => true,
        };
        if named || self.unanswered.is_empty() {
            outcome
        } else {
            Some(RunOutcome::Success {
                pending_tool_call_ids: Some(self.unanswered.clone()),
            })
        }
    }
}

/// `RunEnd` carries one usage entry; a foreign run may report one per model. One entry passes
/// as it is; several are added up, keeping provider/model only where they all agree.
fn merge_usage(usage: Option<Vec<TokenUsage>>) -> Option<TokenUsage> {
    let mut entries = usage?.into_iter();
    let mut total = entries.next()?;
    for u in entries {
        let add = |a: &mut Option<u64>, b: Option<u64>| {
            if let Some(b) = b {
                *a = Some(a.unwrap_or(0) + b);
            }
        };
        add(&mut total.input_tokens, u.input_tokens);
        add(&mut total.output_tokens, u.output_tokens);
        add(&mut total.total_tokens, u.total_tokens);
        add(&mut total.reasoning_tokens, u.reasoning_tokens);
        add(&mut total.cached_input_tokens, u.cached_input_tokens);
        add(
            &mut total.cache_write_input_tokens,
            u.cache_write_input_tokens,
        );
        if total.provider != u.provider {
            total.provider = None;
        }
        if total.model != u.model {
            total.model = None;
        }
    }
    Some(total)
}

impl Agent for ProxyAgent {
    fn info(&self) -> AgentInfo {
        let host = self.host();
        AgentInfo {
            id: self.spec.id.clone(),
            name: self.spec.id.clone(),
            description: format!(
                "Foreign AG-UI agent at {host}, proxied: its events are translated, verified and stored here."
            ),
            capabilities: caps::describe(&self.spec, &host, self.foreign.get()),
            extra: serde_json::Map::from_iter([(
                "proxy".to_string(),
                json!({"host": host}),
            )]),
        }
    }

    fn run<'a>(&'a self, ctx: &'a mut RunContext) -> BoxFuture<'a, Result<RunEnd, AgentError>> {
        Box::pin(async move {
            // Not read at start (the foreign agent was down): try again, in the background.
            self.foreign.refresh(&self.client, &self.spec);
            let (response, feed) = self.open(ctx).await?;
            tracing::debug!(run = %ctx.run_id(), format = feed::name(feed), "foreign stream");
            self.relay(ctx, response, feed).await
        })
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
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
fn root_cause(e: &reqwest::Error) -> String {
    let Some(mut cause) = e.source() else {
        return "the request failed".into();
    };
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

fn host_of(url: &Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => "?".into(),
    }
}

fn is_loopback(url: &Url) -> bool {
    let host = url.host_str().unwrap_or("");
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests;

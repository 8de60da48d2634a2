//! Relaying a proxied run: the foreign body through the pipeline, its verified events re-emitted as ours.

use std::time::Duration;

use futures::StreamExt;
use reqwest::Response;

use super::open::root_cause;
use super::quirks::Quirks;
use super::{ProxyAgent, IDLE_TIMEOUT};
use crate::protocol::event::EventKind;
use crate::protocol::pipeline::binary::BodyKind;
use crate::protocol::pipeline::{Delivered, Pipeline, PipelineOptions};
use crate::protocol::types::{RunOutcome, TokenUsage};
use crate::server::agents::upstream::UpstreamMeter;
use crate::server::agents::{AgentError, RunContext, RunEnd};
use crate::wire::RunErrorCode;

/// How long to wait for the foreign server to close its stream after its terminal event, to
/// catch late events (a late `RUN_ERROR` is legal, anything else is a protocol error) without
/// holding our run open for a server that keeps the connection alive.
const AFTER_TERMINAL_GRACE: Duration = Duration::from_secs(1);

impl ProxyAgent {
    pub(super) async fn relay(
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
    pub(super) fn check(&self, pipeline: &Pipeline, relay: &Relay) -> Result<(), AgentError> {
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
pub(super) struct Relay {
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
pub(super) fn merge_usage(usage: Option<Vec<TokenUsage>>) -> Option<TokenUsage> {
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

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

//! The client pipeline in the 1.1 normative order: SSE decoding (or the protobuf binding's
//! frames, see [`binary`]) → dialect translation → enforcement → chunk expansion →
//! verification → the reducer. The browser and the server's proxy both consume foreign streams
//! through this one type.

use serde_json::Value;

use super::chunks::ChunkExpander;
use super::compat::Version;
use super::dialect::Translator;
use super::enforce::{enforce, Enforced};
use super::event::Event;
use super::reduce::{Change, Conversation};
use super::sse::{Decoder, SseFrame};
use super::types::RunAgentInput;
use super::verify::Verifier;

/// How a consumed stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamOutcome {
    /// Every run ended with a terminal event (`RUN_FINISHED` or `RUN_ERROR`).
    Completed,
    /// The client rejected the stream (a fatal protocol error).
    Failed,
    /// The stream ended with a run still open, or with no run at all. Never success.
    Truncated,
}

impl StreamOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            StreamOutcome::Completed => "completed",
            StreamOutcome::Failed => "failed",
            StreamOutcome::Truncated => "truncated",
        }
    }
}

/// One event delivered to the application, with what it changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivered {
    pub event: Event,
    pub change: Change,
    /// How many of the pipeline's `warnings` there were once this event was applied: the
    /// warnings from the previous delivered event's count up to this one came with it.
    pub warnings_through: usize,
}

/// Options of a consumer.
#[derive(Debug, Clone, Default)]
pub struct PipelineOptions {
    /// The newest protocol version the peer speaks (None: a current peer).
    pub max_protocol_version: Option<Version>,
}

/// A consumer of one event stream (one POST response, possibly carrying several runs).
#[derive(Debug)]
pub struct Pipeline {
    decoder: Decoder,
    translator: Translator,
    chunks: ChunkExpander,
    verifier: Verifier,
    options: PipelineOptions,
    /// The conversation the stream builds.
    pub conversation: Conversation,
    /// Every warning of every stage, in order.
    pub warnings: Vec<String>,
    /// `RUN_ERROR` events delivered: (message, code).
    pub run_errors: Vec<(String, Option<String>)>,
    error: Option<String>,
    /// The stable code of `error` when it has one (the reducer's refusals: `STATE_LIMIT`).
    error_code: Option<&'static str>,
    finished: bool,
    /// The SSE id of the last frame read (ids persist across frames, as in EventSource).
    last_event_id: Option<String>,
    /// After [`Pipeline::reconnect`]: frames whose numeric id is at most this were applied
    /// already and are skipped; the first frame past it ends the skipping.
    skip_through: Option<u64>,
    /// Set when the body is the protobuf binding instead of SSE.
    binary: Option<binary::Frames>,
    /// `error` came from a decoder's bound (an SSE line or a protobuf frame past its limit),
    /// not from what the events said.
    over_a_bound: bool,
    /// How the last body ended inside a protobuf frame, if it did (a cut connection).
    cut_inside_frame: Option<String>,
    /// Plain deltas skip the general path (see [`fast`]); off only in the test that compares
    /// the two paths.
    fast_path: bool,
}

impl Pipeline {
    pub fn new(options: PipelineOptions) -> Self {
        Pipeline {
            decoder: Decoder::new(),
            translator: Translator::new(),
            chunks: ChunkExpander::new(),
            verifier: Verifier::new(),
            options,
            conversation: Conversation::new(),
            warnings: Vec::new(),
            run_errors: Vec::new(),
            error: None,
            error_code: None,
            finished: false,
            last_event_id: None,
            skip_through: None,
            binary: None,
            over_a_bound: false,
            cut_inside_frame: None,
            fast_path: true,
        }
    }

    /// A consumer of the run that `input` started: the conversation starts from its messages
    /// and state, and dialect events that lack ids take the input's.
    pub fn for_input(input: &RunAgentInput, options: PipelineOptions) -> Self {
        let mut p = Pipeline::new(options);
        p.translator = Translator::with_ids(input.thread_id.clone(), input.run_id.clone());
        p.conversation = Conversation::from_input(input);
        p.verifier.expect_thread(&input.thread_id);
        p
    }

    /// The fatal error that stopped the stream, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The stable `RUN_ERROR` code of the fatal error, when it has one (e.g.
    /// [`STATE_LIMIT`](super::reduce::STATE_LIMIT)); `None` for protocol errors.
    pub fn error_code(&self) -> Option<&'static str> {
        self.error_code
    }

    /// Whether the fatal error is a decoder's bound (an SSE line or a protobuf frame past its
    /// size limit, a protobuf event nested past its limit): too much at once, not a protocol
    /// question.
    pub fn exceeded_a_bound(&self) -> bool {
        self.error.is_some() && self.over_a_bound
    }

    /// How the body ended inside a protobuf frame, if it did ([`Pipeline::finish`] says so
    /// here; the stream is then truncated).
    pub fn cut_inside_frame(&self) -> Option<&str> {
        self.cut_inside_frame.as_deref()
    }

    pub fn outcome(&self) -> StreamOutcome {
        if self.error.is_some() {
            StreamOutcome::Failed
        } else if self.verifier.is_complete() {
            StreamOutcome::Completed
        } else {
            StreamOutcome::Truncated
        }
    }

    /// Feed raw response bytes, split anywhere.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Vec<Delivered> {
        if self.error.is_some() {
            return Vec::new();
        }
        if self.binary.is_some() {
            return self.push_binary(bytes);
        }
        match self.decoder.push(bytes) {
            Ok(frames) => self.push_frames(frames),
            Err(e) => {
                self.fail_on_bound(format!("SSE decoding failed: {e}"));
                Vec::new()
            }
        }
    }

    /// The response body ended.
    pub fn finish(&mut self) -> Vec<Delivered> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let mut out = if self.binary.is_some() {
            self.finish_binary();
            Vec::new()
        } else {
            self.finish_sse()
        };
        if self.error.is_none() {
            let t = self.translator.finish();
            self.warnings.extend(t.warnings);
            for v in t.events {
                out.extend(self.push_translated(v));
            }
        }
        out
    }

    fn finish_sse(&mut self) -> Vec<Delivered> {
        match self.decoder.finish() {
            Ok(mut frames) => {
                // The decoder dispatches an unterminated last frame (a producer that omits the
                // final blank line). One whose JSON is cut short is what a broken connection
                // leaves: the stream is truncated, not malformed.
                if self.decoder.ended_mid_frame()
                    && frames
                        .last()
                        .is_some_and(|f| serde_json::from_str::<Value>(&f.data).is_err())
                {
                    frames.pop();
                }
                self.push_frames(frames)
            }
            Err(e) => {
                self.fail_on_bound(format!("SSE decoding failed: {e}"));
                Vec::new()
            }
        }
    }

    /// The SSE id of the last frame read: what a client sends as `Last-Event-ID` to read on
    /// after a broken connection.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// A new connection to the same stream, resuming after [`Pipeline::last_event_id`]: a fresh
    /// SSE decoder (a frame the break cut in two is dropped and read again whole), and the
    /// frames the server sends again up to that id skipped, so no event is applied twice.
    /// Everything after the decoder (the dialect, the verifier, the conversation) goes on.
    pub fn reconnect(&mut self) {
        self.decoder = Decoder::new();
        self.binary = self.binary.take().map(binary::Frames::restart);
        self.skip_through = self
            .last_event_id
            .as_deref()
            .and_then(|id| id.trim().parse().ok());
    }

    fn push_frames(&mut self, frames: Vec<SseFrame>) -> Vec<Delivered> {
        let mut out = Vec::new();
        for f in frames {
            if self.error.is_some() {
                break;
            }
            if let Some(through) = self.skip_through {
                match f.id.as_deref().and_then(|id| id.trim().parse::<u64>().ok()) {
                    Some(id) if id <= through => continue,
                    _ => self.skip_through = None,
                }
            }
            if f.id.is_some() {
                self.last_event_id = f.id;
            }
            // A delta in its plain shape skips the JSON tree, the translator (which would pass
            // it through, unless a named-event text message is open) and enforcement.
            if self.fast_path && self.translator.passes_typed_through() {
                if let Some(event) = fast::flat_delta(&f.data) {
                    self.push_enforced_into(event, &mut out);
                    continue;
                }
            }
            match serde_json::from_str::<Value>(&f.data) {
                Ok(v) => out.extend(self.push_value(f.event.as_deref(), v)),
                Err(e) => self.fail(format!(
                    "invalid JSON in SSE data ({e}): {}",
                    brief(&f.data)
                )),
            }
        }
        out
    }

    /// Feed one decoded event: its SSE `event:` name, if any, and its JSON.
    pub fn push_value(&mut self, sse_event: Option<&str>, value: Value) -> Vec<Delivered> {
        if self.error.is_some() {
            return Vec::new();
        }
        let t = self.translator.translate(sse_event, value);
        self.warnings.extend(t.warnings);
        let mut out = Vec::new();
        for v in t.events {
            out.extend(self.push_translated(v));
        }
        out
    }

    fn push_translated(&mut self, value: Value) -> Vec<Delivered> {
        if self.error.is_some() {
            return Vec::new();
        }
        let event = match enforce(value, &mut self.warnings) {
            Ok(Enforced::Event(e)) => *e,
            Ok(Enforced::Dropped) => return Vec::new(),
            Err(e) => {
                self.fail(e.to_string());
                return Vec::new();
            }
        };
        self.push_enforced(event)
    }

    fn fail(&mut self, error: String) {
        if self.error.is_none() {
            self.error = Some(error);
        }
    }

    fn fail_on_bound(&mut self, error: String) {
        if self.error.is_none() {
            self.over_a_bound = true;
        }
        self.fail(error);
    }
}

fn brief(s: &str) -> String {
    super::enforce::brief(&Value::String(s.to_string()))
}

pub mod binary;
mod deliver;
mod fast;
#[cfg(test)]
mod musts;
#[cfg(test)]
mod tests;

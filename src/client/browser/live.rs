//! The state of one session's browser half: its conversation (in the run's pipeline while a run
//! streams, here between runs), the run's connection, and what waits for the next animation
//! frame. Everything else in `browser/` works on a [`Shared`] `Live`.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use leptos::prelude::*;
use serde_json::Value;

use crate::client::event_log::RunMark;
use crate::client::session::{Pending, RunView, UseAgentOptions, Writers};
use crate::client::transport::now_ms;
use crate::protocol::pipeline::Pipeline;
use crate::protocol::reduce::Conversation;
use crate::protocol::types::{Message, RunAgentInput};

pub(super) struct Live {
    pub(super) options: UseAgentOptions,
    pub(super) w: Writers,
    pub(super) conversation: Conversation,
    pub(super) pipeline: Option<Pipeline>,
    pub(super) signals: HashMap<String, ArcRwSignal<Message>>,
    pub(super) pending: Pending,
    pub(super) frame_scheduled: bool,
    pub(super) abort: Option<web_sys::AbortController>,
    /// The key of the last event recorded for the inspector.
    pub(super) key: usize,
    /// The current run, for numbering its events in the inspector.
    pub(super) mark: RunMark,
    pub(super) warnings_seen: usize,
    pub(super) run_view: RunView,
    /// The last run's input and the ids of the messages it started from (for Retry, which
    /// takes back what the run added, as the server does).
    pub(super) last_run: Option<(RunAgentInput, HashSet<String>)>,
    pub(super) interrupt_answers: HashMap<String, Value>,
    /// Where the current run's events can be re-read (a detached run on this server).
    pub(super) events_url: Option<String>,
    /// Bytes received by the current run (to tell a resume that made progress).
    pub(super) received: u64,
    /// Bumped by every run start and reset, so the tasks of an older run stop.
    pub(super) generation: u64,
}

pub(super) type Shared = Rc<RefCell<Live>>;

impl Live {
    /// Start reading a run: its pipeline (holding the session's one conversation while the run
    /// streams), the run's input kept for Retry, everything redrawn on the next frame.
    pub(super) fn begin_run(
        &mut self,
        input: RunAgentInput,
        pipeline: Pipeline,
        events_url: Option<String>,
    ) {
        self.events_url = events_url;
        self.received = 0;
        let ids = pipeline
            .conversation
            .messages
            .iter()
            .map(|m| m.id().to_string())
            .collect();
        self.mark = RunMark::new(&input.run_id, js_sys::Date::now());
        self.last_run = Some((input, ids));
        self.pipeline = Some(pipeline);
        self.warnings_seen = 0;
        self.run_view.started_at = Some(now_ms());
        self.run_view.ended_at = None;
        self.pending.messages_reset = true;
        self.pending.state = true;
        self.pending.run = true;
    }

    pub(super) fn current(&self) -> &Conversation {
        self.pipeline
            .as_ref()
            .map(|p| &p.conversation)
            .unwrap_or(&self.conversation)
    }
    pub(super) fn current_mut(&mut self) -> &mut Conversation {
        match self.pipeline.as_mut() {
            Some(p) => &mut p.conversation,
            None => &mut self.conversation,
        }
    }
}

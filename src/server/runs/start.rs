//! A run's start: the checks that refuse it before anything is allocated (limits, owners, run
//! ids, capacity), the thread's history merged into its input, its registration, and the task
//! that drives its agent.

use std::collections::VecDeque;
use std::sync::Arc;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio_util::sync::CancellationToken;

use super::admit::{blocking, is_light, not_your_thread};
use super::context::{Agent, RunContext, RunSettings, ToolAnswers};
use super::drive::{drive, start, RunSink};
use super::log::{RunLog, RunReader};
use super::observers::Origin;
use super::registry::ActiveRun;
use super::retry::{replaced_run, Replaced};
use super::thread_cache::{merge_history, History};
use super::{resume, side, Runs, StartedRun};
use crate::protocol::chunks::ChunkExpander;
use crate::protocol::compat::parse_version;
use crate::protocol::types::RunAgentInput;
use crate::server::accounts::User;
use crate::server::clock::now_ms;
use crate::server::error::ApiError;
use crate::server::store::Store;

impl Runs {
    /// [`Runs::start_for`] the anonymous user (a server without authentication).
    pub async fn start(
        self: &Arc<Self>,
        agent: Arc<dyn Agent>,
        input: RunAgentInput,
        settings: RunSettings,
    ) -> Result<StartedRun, ApiError> {
        self.start_for(agent, input, settings, User::anonymous())
            .await
    }

    /// Start `agent` on `input` in its own task, for `owner`. The returned reader yields the
    /// run's events, from `RUN_STARTED` to exactly one terminal event.
    ///
    /// A run on a known thread whose messages share no id with the thread's receives the
    /// thread's history before them (a client may send only the new messages), and the thread's
    /// state when it sends none. A thread of another user is 404 and a run id of another
    /// user's run 409; neither is touched.
    ///
    /// Refused before anything is allocated for it: an input past the [`Limits`], a run id in
    /// progress or already used on another thread (409), more runs than allowed in total or
    /// for this user (429).
    pub async fn start_for(
        self: &Arc<Self>,
        agent: Arc<dyn Agent>,
        input: RunAgentInput,
        settings: RunSettings,
        owner: User,
    ) -> Result<StartedRun, ApiError> {
        self.limits.check_run_input(&input)?;
        self.registry
            .check(&input.run_id, &owner, self.capacity())?;
        let stored_owner = self.check_owner(&input, &owner).await?;
        // Before anything is stored: a refused request leaves no run behind.
        agent.check_input(&input, &settings)?;
        let side = input.is_proxied_mcp_request();
        if side {
            let thread = &input.thread_id;
            let conv = match self.owns_thread(&owner, thread).await {
                true => self.load_thread(thread).await,
                false => None,
            };
            if !conv.is_some_and(|c| side::names_an_app_of(&c, &input)) {
                return Err(side::no_app(thread));
            }
        }
        let agent = match side {
            true => agent,
            false => match self.check_resume(&input).await? {
                Some(error) => Arc::new(resume::Expired { agent, error }),
                None => agent,
            },
        };
        // A side run (an MCP request the agent proxies) is no part of the thread: no history,
        // no store, no observers; the thread is neither created nor touched.
        let store = self.store.clone().filter(|_| !side);
        // A thread nobody owns yet has no history and no last run: a new thread's run skips
        // those reads (with a thousand runs starting at once, each read waits its turn for one
        // of the database's few connections).
        let known_thread = stored_owner.is_some();
        let history = match side || !known_thread {
            true => None,
            false => self.history(&input.thread_id).await,
        };
        // A run carrying no more messages than its thread has may be a regeneration of its last
        // answer (see `retry`); only such a run looks the last run up.
        let may_regenerate = input.resume.is_none()
            && history
                .as_ref()
                .is_some_and(|h| input.messages.len() <= h.messages.len());
        // Merging a long history is CPU work: off the async workers, so other clients (and
        // `/healthz`) are served meanwhile.
        let input = match history.as_ref() {
            Some(h) => {
                let (messages, state) = (h.messages.clone(), h.state.clone());
                blocking(move || {
                    let mut input = input;
                    merge_history(&mut input, &messages, &state);
                    input
                })
                .await?
            }
            None => input,
        };
        let replaced = match &store {
            Some(store) if known_thread => {
                let failed = self.threads.last_run_failed(&input.thread_id);
                replaced_run(store, failed, may_regenerate, &input).await
            }
            _ => None,
        };
        let cancel = CancellationToken::new();
        let log = Arc::new(RunLog::new(store.is_some()));
        let run = ActiveRun {
            thread_id: input.thread_id.clone(),
            owner: owner.clone(),
            cancel: cancel.clone(),
            log: log.clone(),
            side,
        };
        // Checked again with the registry locked: two users racing for a new thread id.
        self.registry
            .admit(&input.run_id, run, self.capacity(), || {
                match side || self.threads.claim(&input.thread_id, &owner, stored_owner) {
                    true => Ok(()),
                    false => Err(not_your_thread(&input.thread_id)),
                }
            })?;
        let reader = RunReader {
            run_id: input.run_id.clone(),
            log: Some(log.clone()),
            store: store.clone(),
            after: 0,
            pending: VecDeque::new(),
            peer: input.protocol_version.as_deref().and_then(parse_version),
            flushed: false,
            told_failure: false,
            paces: false,
        }
        .pacing();
        // From here the run is registered. A request abandoned halfway (its client hung up
        // while the run started) must not leave the run registered with no task to end it, its
        // thread busy and its slot taken for good: what is left of the start then finishes in
        // a task of its own, and the run, which nobody reads, is cancelled.
        let begin = Begin {
            agent,
            input,
            settings,
            owner,
            history,
            replaced,
            side,
            store,
            log,
            cancel: cancel.clone(),
        };
        FinishIfAbandoned::new(Box::pin(self.clone().begin(begin)), cancel.clone()).await?;
        Ok(StartedRun {
            events: reader,
            cancel,
        })
    }

    /// The rest of a registered run's start ([`Runs::start_for`]): the thread's conversation,
    /// the run's `RUN_STARTED` committed with its start, then its task.
    async fn begin(self: Arc<Self>, b: Begin) -> Result<(), ApiError> {
        let run_id = b.input.run_id.clone();
        let agent_id = b.agent.info().id;
        let (threads, limits, with_store) =
            (self.threads.clone(), self.limits.clone(), b.store.is_some());
        let (side, owner) = (b.side, b.owner.clone());
        let (input, history, replaced) = (b.input, b.history, b.replaced);
        let light = history.is_none() && replaced.is_none() && is_light(&input);
        let begin = move || {
            if side {
                return (input, None);
            }
            let replaced = replaced.as_ref().map(|r| (r.run_id.as_str(), &r.produced));
            let messages = threads.begin(&input, &owner, history, replaced, &limits, now_ms());
            let op = with_store.then(|| {
                Store::run_started_op(&input, &messages, &agent_id, owner.name(), now_ms())
            });
            (input, op)
        };
        let begun = match light {
            true => Ok(begin()),
            false => blocking(begin).await,
        };
        let (input, op) = match begun {
            Ok(begun) => begun,
            Err(e) => {
                self.end(&run_id);
                return Err(e);
            }
        };
        let sink = RunSink {
            log: b.log.clone(),
            threads: self.threads.clone(),
            hub: self.hub.clone(),
            store: b.store.clone(),
            origin: Arc::new(Origin {
                thread_id: input.thread_id.as_str().into(),
                run_id: input.run_id.as_str().into(),
                owner: b.owner,
            }),
            seq: 0,
            chunks: ChunkExpander::new(),
            side,
            start: op,
        };
        let answers: Arc<dyn ToolAnswers> = self.clone();
        // Boxed: a future keeps the room of what it captured even once that has moved on, so
        // the run's task would hold the context twice (here and in `drive`).
        let mut ctx = Box::new(RunContext::new(
            input,
            b.settings,
            b.cancel.clone(),
            Box::new(sink),
            answers,
        ));
        // The run and its first event are committed before the client is answered: its events
        // URL works even after a crash, and the response's first write carries RUN_STARTED.
        Box::pin(start(&mut ctx)).await;
        let (agent, log, store) = (b.agent, b.log, b.store);
        tokio::spawn(async move {
            drive(agent, ctx, log, self.threads.clone(), store).await;
            self.end(&run_id);
        });
        Ok(())
    }

    /// Refuse a run on another user's thread (404), reusing another user's run id (409), or
    /// reusing a run id of another thread (409). Returns the thread's stored owner (None: a new
    /// thread), for the check repeated when the run registers.
    async fn check_owner(
        &self,
        input: &RunAgentInput,
        owner: &User,
    ) -> Result<Option<String>, ApiError> {
        let (thread_id, run_id) = (&input.thread_id, &input.run_id);
        // A thread in memory and a run in progress are known; what is not is read from the
        // database, the thread's owner and the run id's use in one read (with a thousand runs
        // starting at once, each read waited its turn for a pooled connection).
        let known_thread = self.threads.owner(thread_id).map(|o| o.name().to_string());
        let running = self
            .registry
            .owner(run_id)
            .map(|o| (o.name().to_string(), None));
        let (thread, stored_run) = match (&self.store, known_thread, running) {
            (Some(store), thread, run) if thread.is_none() || run.is_none() => {
                if thread.is_none() {
                    store.flush_thread(thread_id).await;
                }
                if run.is_none() {
                    store.flush_run(run_id).await;
                }
                let (stored_thread, stored_run) =
                    store.thread_and_run_owners(thread_id, run_id).await?;
                (
                    thread.or(stored_thread),
                    run.or(stored_run.map(|(o, t)| (o, Some(t)))),
                )
            }
            (_, thread, run) => (thread, run),
        };
        if thread.as_ref().is_some_and(|o| !owner.is(o)) {
            return Err(not_your_thread(thread_id));
        }
        if let Some((run_owner, run_thread)) = stored_run {
            if !owner.is(&run_owner) {
                return Err(ApiError::Conflict(format!(
                    "run id '{}' is already used",
                    input.run_id
                )));
            }
            if run_thread.is_some_and(|t| t != input.thread_id) {
                return Err(ApiError::Conflict(format!(
                    "run id '{}' is already used on another thread",
                    input.run_id
                )));
            }
        }
        Ok(thread)
    }
}

/// What the rest of a registered run's start needs ([`Runs::begin`]).
struct Begin {
    agent: Arc<dyn Agent>,
    input: RunAgentInput,
    settings: RunSettings,
    owner: User,
    history: Option<History>,
    replaced: Option<Replaced>,
    side: bool,
    store: Option<Store>,
    log: Arc<RunLog>,
    cancel: CancellationToken,
}

/// A registered run's remaining start ([`Runs::begin`]).
type Steps = Pin<Box<dyn Future<Output = Result<(), ApiError>> + Send>>;

/// A start's remaining steps, awaited by its request: dropped before they end (the request was
/// abandoned), they are cancelled and finish in a task of their own instead of stopping
/// halfway. Awaited to the end, no task is spawned (a thousand runs starting at once each
/// paid for that hop when every start went through a task).
struct FinishIfAbandoned {
    steps: Option<Steps>,
    cancel: CancellationToken,
}

impl FinishIfAbandoned {
    fn new(steps: Steps, cancel: CancellationToken) -> Self {
        FinishIfAbandoned {
            steps: Some(steps),
            cancel,
        }
    }
}

impl Future for FinishIfAbandoned {
    type Output = Result<(), ApiError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(steps) = self.steps.as_mut() else {
            return Poll::Ready(Err(ApiError::Internal(
                "a start polled after its end".into(),
            )));
        };
        let done = std::task::ready!(steps.as_mut().poll(cx));
        self.steps = None;
        Poll::Ready(done)
    }
}

impl Drop for FinishIfAbandoned {
    fn drop(&mut self) {
        let Some(steps) = self.steps.take() else {
            return;
        };
        self.cancel.cancel();
        // Outside a runtime (it is shutting down) there is nothing left to finish for.
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = steps.await;
            });
        }
    }
}

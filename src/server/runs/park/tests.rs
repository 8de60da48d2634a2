//! Parked runs: the agent's step is gone while the run waits, the answer resumes it on the
//! same stream, and an abort, a timeout or a panic after it still end it with exactly one
//! terminal event.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde_json::{json, Value};

use crate::protocol::event::{Event, EventKind};
use crate::protocol::types::RunOutcome;
use crate::server::agents::demo::testing::{input_for, settings};
use crate::server::agents::{Agent, AgentError, AgentInfo, Resume, RunContext, RunEnd};
use crate::server::runs::{Runs, StartedRun};

/// Counts the steps alive: each holds one of these (and a megabyte of state) until it is
/// dropped.
struct Step {
    alive: Arc<AtomicUsize>,
    _state: Vec<u8>,
}

impl Step {
    fn new(alive: &Arc<AtomicUsize>) -> Self {
        alive.fetch_add(1, Ordering::SeqCst);
        Step {
            alive: alive.clone(),
            _state: vec![7; 1 << 20],
        }
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        self.alive.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Calls `ask` and parks on it, `parks` times in all, then says what it was answered (or
/// panics on the answer "panic").
struct Parks {
    alive: Arc<AtomicUsize>,
    parks: usize,
}

async fn ask(ctx: &mut RunContext) -> Result<String, AgentError> {
    let call = ctx.new_id("call");
    ctx.emit(EventKind::ToolCallStart {
        tool_call_id: call.clone(),
        tool_call_name: "ask".into(),
        parent_message_id: None,
    })
    .await?;
    ctx.emit(EventKind::ToolCallEnd {
        tool_call_id: call.clone(),
    })
    .await?;
    Ok(call)
}

/// The rest of a [`Parks`] run once answered.
struct Then {
    alive: Arc<AtomicUsize>,
    left: usize,
    answers: Vec<Value>,
}

impl Resume for Then {
    fn resume<'a>(
        self: Box<Self>,
        ctx: &'a mut RunContext,
        answer: Value,
    ) -> BoxFuture<'a, Result<RunEnd, AgentError>> {
        Box::pin(async move {
            let _step = Step::new(&self.alive);
            assert_eq!(
                ctx.input.messages.len(),
                0,
                "a resumed run's input has ids only"
            );
            if answer == "panic" {
                panic!("the agent's continuation fails");
            }
            let mut answers = self.answers;
            answers.push(answer);
            if self.left > 0 {
                let call = ask(ctx).await?;
                let then = Then {
                    alive: self.alive.clone(),
                    left: self.left - 1,
                    answers,
                };
                return ctx.park(&call, Box::new(then));
            }
            let id = ctx.new_id("msg");
            ctx.emit(EventKind::TextMessageStart {
                message_id: id.clone(),
                role: Default::default(),
                name: None,
            })
            .await?;
            ctx.emit(EventKind::TextMessageContent {
                message_id: id.clone(),
                delta: Value::Array(answers).to_string(),
            })
            .await?;
            // Left open: the runtime closes it.
            Ok(RunEnd::success())
        })
    }
}

impl Agent for Parks {
    fn info(&self) -> AgentInfo {
        AgentInfo {
            id: "parks".into(),
            name: "parks".into(),
            description: String::new(),
            capabilities: json!({}),
            extra: Default::default(),
        }
    }

    fn run<'a>(&'a self, ctx: &'a mut RunContext) -> BoxFuture<'a, Result<RunEnd, AgentError>> {
        Box::pin(async move {
            let _step = Step::new(&self.alive);
            let call = ask(ctx).await?;
            let then = Then {
                alive: self.alive.clone(),
                left: self.parks - 1,
                answers: Vec::new(),
            };
            ctx.park(&call, Box::new(then))
        })
    }
}

/// A [`Parks`] run parking `parks` times, each wait timing out after `timeout`: its stream,
/// the count of its steps alive, its run id.
async fn start(
    runs: &Arc<Runs>,
    parks: usize,
    timeout: Duration,
) -> (StartedRun, Arc<AtomicUsize>, String) {
    let alive = Arc::new(AtomicUsize::new(0));
    let agent = Arc::new(Parks {
        alive: alive.clone(),
        parks,
    });
    let mut s = settings();
    s.approval_timeout = timeout;
    let input = input_for("park");
    let run_id = input.run_id.clone();
    let started = runs.start(agent, input, s).await.unwrap();
    (started, alive, run_id)
}

/// Reads until the run waits on a call with its agent's step dropped: the call's id.
async fn parked(runs: &Arc<Runs>, started: &mut StartedRun, alive: &AtomicUsize) -> String {
    loop {
        let e = started.events.recv().await.expect("the run goes on");
        if matches!(e.kind, EventKind::ToolCallEnd { .. }) {
            break;
        }
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let waits = runs.pending_waits();
        if waits.len() == 1 && alive.load(Ordering::SeqCst) == 0 {
            assert_eq!(
                runs.active_count(),
                1,
                "the parked run is still in progress"
            );
            return waits[0].0.clone();
        }
        assert!(
            Instant::now() < deadline,
            "the run did not park: {} step(s) alive, waits {waits:?}",
            alive.load(Ordering::SeqCst)
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

async fn rest(started: &mut StartedRun) -> Vec<Event> {
    let mut out = Vec::new();
    while let Some(e) = started.events.recv().await {
        out.push(e);
    }
    out
}

async fn ended(runs: &Arc<Runs>) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while runs.active_count() > 0 {
        assert!(Instant::now() < deadline, "the run did not end");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert!(runs.pending_waits().is_empty());
}

/// The step that parked is dropped (its state with it) while the run waits, twice over; each
/// answer resumes the run on the same stream, and its end comes once.
#[tokio::test]
async fn a_parked_run_keeps_none_of_its_agents_step_and_resumes_on_its_answer() {
    let runs = Runs::new();
    let (mut started, alive, run_id) = start(&runs, 2, Duration::from_secs(30)).await;
    let first = parked(&runs, &mut started, &alive).await;
    assert_eq!(
        runs.resolve_wait(&first, json!("one")).map(|r| r.1),
        Some(run_id)
    );
    let second = parked(&runs, &mut started, &alive).await;
    assert_ne!(first, second);
    runs.resolve_wait(&second, json!({"two": 2})).unwrap();
    let events = rest(&mut started).await;
    let kinds: Vec<_> = events.iter().map(|e| e.kind.type_name()).collect();
    assert_eq!(
        kinds,
        [
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
    match &events[1].kind {
        EventKind::TextMessageContent { delta, .. } => {
            assert_eq!(delta, r#"["one",{"two":2}]"#)
        }
        other => panic!("{other:?}"),
    }
    ended(&runs).await;
    assert_eq!(alive.load(Ordering::SeqCst), 0);
}

/// An aborted parked run ends cancelled; a parked run nobody answers ends with
/// `APPROVAL_TIMEOUT`; a continuation that panics ends with `INTERNAL_ERROR`. None leaves a
/// wait or a run behind.
#[tokio::test]
async fn a_parked_run_ends_cleanly_when_aborted_timed_out_or_its_continuation_panics() {
    let runs = Runs::new();
    let (mut started, alive, run_id) = start(&runs, 1, Duration::from_secs(30)).await;
    parked(&runs, &mut started, &alive).await;
    assert_eq!(runs.abort(Some(&run_id), None), 1);
    let events = rest(&mut started).await;
    match &events.last().expect("a terminal event").kind {
        EventKind::RunFinished { outcome, .. } => {
            assert_eq!(*outcome, Some(RunOutcome::Cancelled))
        }
        other => panic!("{other:?}"),
    }
    ended(&runs).await;

    let runs = Runs::new();
    let (mut started, alive, _) = start(&runs, 1, Duration::from_millis(200)).await;
    parked(&runs, &mut started, &alive).await;
    let events = rest(&mut started).await;
    match &events.last().expect("a terminal event").kind {
        EventKind::RunError { code, .. } => {
            assert_eq!(code.as_deref(), Some("APPROVAL_TIMEOUT"))
        }
        other => panic!("{other:?}"),
    }
    ended(&runs).await;

    let runs = Runs::new();
    let (mut started, alive, _) = start(&runs, 1, Duration::from_secs(30)).await;
    let call = parked(&runs, &mut started, &alive).await;
    runs.resolve_wait(&call, json!("panic")).unwrap();
    let events = rest(&mut started).await;
    assert_eq!(events.len(), 1, "{events:?}");
    match &events[0].kind {
        EventKind::RunError { code, .. } => assert_eq!(code.as_deref(), Some("INTERNAL_ERROR")),
        other => panic!("{other:?}"),
    }
    ended(&runs).await;
    assert_eq!(alive.load(Ordering::SeqCst), 0);
}

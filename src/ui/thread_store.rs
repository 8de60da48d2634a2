//! The threads: those this server stores (`GET /api/threads`) and the live sessions of this tab,
//! and the list to switch between them.
//!
//! Each thread opened in the tab is its own live `use_agent` session, kept for as long as the
//! page is open: switching back shows it exactly as it was (events, pending approvals, a run
//! still streaming). A stored thread that is not open yet is loaded with
//! `GET /api/threads/{id}` when chosen. The thread on screen is in the address bar
//! (`/?thread=ID`), so a reload brings it back, rendered on the server with its messages.
//! Threads that talk to a foreign agent URL are not stored by this server: they live in this
//! tab only.

use leptos::prelude::*;

use crate::client::body_format::BodyFormat;
use crate::client::errors::RunErrorView;
use crate::client::session::{Connection, UseAgentOptions, UseAgentReturn};
use crate::client::use_agent;
use crate::ui::message_actions::Ratings;
use crate::wire::DEFAULT_AGENT_URL;
use crate::wire::{RunState, RunSummary, ThreadSummary, ThreadView};

mod agent_header;
pub mod parse;
pub use agent_header::AgentHeader;

pub use crate::wire::InitialThreads;

/// The stored threads and the one named by `requested`, of the user the request is from. Under
/// SSR they come from the server's [`crate::wire::PageData`] in context (nothing without it:
/// e.g. in unit tests); the browser reads them from the server-rendered page.
// Not an `async fn`: under SSR the context must be read when the resource is created, not
// when the future is first polled.
#[allow(clippy::manual_async_fn)]
pub fn initial_threads(
    requested: Option<String>,
) -> impl std::future::Future<Output = InitialThreads> + Send + 'static {
    #[cfg(feature = "ssr")]
    let loading =
        use_context::<crate::wire::PageData>().map(|page| page.0.threads(requested.clone()));
    async move {
        #[cfg(feature = "ssr")]
        if let Some(loading) = loading {
            return loading.await;
        }
        InitialThreads {
            requested,
            ..Default::default()
        }
    }
}

/// One open thread: its session and the endpoint it posts to.
#[derive(Clone, Copy)]
pub struct ThreadRecord {
    /// Unique in the tab (0 is the thread the page starts with).
    pub key: usize,
    pub url: RwSignal<String>,
    pub agent: UseAgentReturn,
}

/// The threads and which one is shown.
#[derive(Clone, Copy)]
pub struct ThreadStore {
    /// The sessions open in this tab.
    pub threads: RwSignal<Vec<ThreadRecord>>,
    pub active: RwSignal<usize>,
    /// The threads this server stores, most recently updated first.
    pub stored: RwSignal<Vec<ThreadSummary>>,
    /// The stored thread being loaded, if any.
    pub loading: RwSignal<Option<String>>,
    /// Why the last thread could not be loaded.
    pub load_error: RwSignal<Option<String>>,
    /// The header the user typed for one Agent URL.
    agent_header: AgentHeader,
    /// The studio's owner: sessions created from event handlers live as long as the studio.
    pub(crate) owner: StoredValue<Owner>,
    /// The clock relative times are read against (Unix ms): the server's when the page was
    /// rendered, then the browser's, every 30 s.
    pub now: RwSignal<i64>,
    /// The text of "Search threads".
    pub query: RwSignal<String>,
    /// The server's answer to `query` (`GET /api/threads?q=`), once it came.
    pub found: RwSignal<Option<Vec<ThreadSummary>>>,
    /// Ratings of the threads' messages (also in context, for the transcript).
    pub ratings: Ratings,
    /// The body format runs ask for (the "Transport" picker's choice).
    pub format: RwSignal<BodyFormat>,
}

/// The endpoint of a stored thread's agent.
pub(crate) fn agent_url(agent_id: Option<&str>) -> String {
    agent_id
        .map(crate::wire::agent_url)
        .unwrap_or_else(|| DEFAULT_AGENT_URL.to_string())
}

/// Whether `url` is an endpoint of the page's own server (relative).
pub fn is_local(url: &str) -> bool {
    url.starts_with('/') && !url.starts_with("//")
}

impl ThreadStore {
    /// The store with the thread the page starts with: the one `initial` names (its messages
    /// and state), else an empty one posting to [`DEFAULT_AGENT_URL`]. Call inside the
    /// component that owns the studio.
    pub fn new(
        agent_header: AgentHeader,
        initial: InitialThreads,
        current: Option<Result<ThreadView, String>>,
    ) -> Self {
        let owner = Owner::current().unwrap_or_default();
        let threads: RwSignal<Vec<ThreadRecord>> = RwSignal::new(Vec::new());
        let ratings = Ratings {
            by_thread: RwSignal::new(Default::default()),
            // Ratings are stored by this server: only its own threads have them.
            stored: Callback::new(move |id: String| {
                threads.with(|t| {
                    t.iter().any(|r| {
                        r.agent.thread_id.with(|x| *x == id) && r.url.with(|u| is_local(u))
                    })
                })
            }),
        };
        provide_context(ratings);
        let store = ThreadStore {
            threads,
            active: RwSignal::new(0),
            stored: RwSignal::new(initial.list),
            loading: RwSignal::new(None),
            load_error: RwSignal::new(None),
            agent_header,
            owner: StoredValue::new(owner),
            now: RwSignal::new(initial.now_ms),
            query: RwSignal::new(String::new()),
            found: RwSignal::new(None),
            ratings,
            format: RwSignal::new(BodyFormat::default()),
        };
        let first = match current {
            Some(Ok(view)) => store.session(0, Some(view), None),
            Some(Err(why)) => {
                store.load_error.set(Some(why));
                store.session(0, None, initial.requested)
            }
            None => store.session(0, None, initial.requested),
        };
        store.threads.set(vec![first]);
        store
    }

    /// A session: of a stored thread (`view`), or empty with `thread_id` (a fresh id if none).
    pub(crate) fn session(
        &self,
        key: usize,
        view: Option<ThreadView>,
        thread_id: Option<String>,
    ) -> ThreadRecord {
        let url_now = RwSignal::new(String::new());
        let agent_header = self.agent_header;
        let headers = Signal::derive(move || agent_header.for_url(&url_now.get()));
        let format: Signal<BodyFormat> = self.format.into();
        let (url, options) = match view {
            Some(v) => {
                let follow = v
                    .runs
                    .last()
                    .filter(|r| r.status == RunState::Running)
                    .map(|r| r.run_id.clone());
                let failed_run = v.runs.last().and_then(failed_run);
                let last_run = v
                    .runs
                    .last()
                    .filter(|r| r.status != RunState::Running)
                    .map(|r| r.run_id.clone());
                let (id, feedback) = (v.id.clone(), v.feedback.clone());
                self.ratings
                    .by_thread
                    .update(|b| drop(b.insert(id, feedback)));
                (
                    agent_url(v.agent_id.as_deref()),
                    UseAgentOptions {
                        url: Signal::default(),
                        headers,
                        format,
                        tools: Vec::new(),
                        follow_run: follow.clone(),
                        // The followed run's hints come again with its events.
                        initial_render_hints: v
                            .render_hints
                            .into_iter()
                            .filter(|h| h.run_id.is_none() || h.run_id != follow)
                            .collect(),
                        initial_messages: v.messages,
                        initial_state: Some(v.state),
                        initial_thread_id: Some(v.id),
                        failed_run,
                        last_run,
                        stored_runs: !v.runs.is_empty(),
                    },
                )
            }
            None => (
                DEFAULT_AGENT_URL.to_string(),
                UseAgentOptions {
                    url: Signal::default(),
                    headers,
                    format,
                    tools: Vec::new(),
                    initial_messages: Vec::new(),
                    initial_state: None,
                    initial_thread_id: thread_id,
                    follow_run: None,
                    initial_render_hints: Vec::new(),
                    failed_run: None,
                    last_run: None,
                    stored_runs: false,
                },
            ),
        };
        url_now.set(url);
        let url = url_now;
        let agent = use_agent(UseAgentOptions {
            url: url.into(),
            ..options
        });
        // The stored list changes when a run on this server ends.
        let store = *self;
        Effect::new(move |was_running: Option<bool>| {
            let running = agent.is_running.get();
            let ended = matches!(
                agent.connection.get_untracked(),
                Connection::Closed | Connection::Failed
            );
            if was_running == Some(true) && !running && ended && is_local(&url.get_untracked()) {
                store.refresh();
            }
            running
        });
        ThreadRecord { key, url, agent }
    }

    fn next_key(&self) -> usize {
        self.threads
            .with_untracked(|t| t.iter().map(|r| r.key).max().unwrap_or(0) + 1)
    }

    /// The thread on screen (tracks `active`).
    pub fn current(&self) -> ThreadRecord {
        let key = self.active.get();
        self.threads
            .with_untracked(|t| t.iter().find(|r| r.key == key).or(t.first()).copied())
            .expect("the store always has a thread")
    }

    /// The thread on screen, without tracking.
    pub fn current_untracked(&self) -> ThreadRecord {
        let key = self.active.get_untracked();
        self.threads
            .with_untracked(|t| t.iter().find(|r| r.key == key).or(t.first()).copied())
            .expect("the store always has a thread")
    }

    /// Start a new thread with the current thread's agent and show it. When the current thread
    /// is still empty, it is reused.
    pub fn new_thread(&self) {
        let current = self.current_untracked();
        if current.agent.messages.with_untracked(Vec::is_empty) {
            return;
        }
        let key = self.next_key();
        let url = current.url.get_untracked();
        let store = *self;
        let record = self
            .owner
            .with_value(|o| o.with(|| store.session(key, None, None)));
        record.url.set(url);
        self.threads.update(|t| t.push(record));
        self.active.set(key);
    }

    /// Show the thread `id`: its open session, or the stored thread loaded from the server.
    pub fn open(&self, id: String) {
        let open = self.threads.with_untracked(|t| {
            t.iter()
                .find(|r| r.agent.thread_id.with_untracked(|t| *t == id))
                .map(|r| r.key)
        });
        match open {
            Some(key) => self.active.set(key),
            None => self.load(id),
        }
    }

    /// Load the stored thread `id` and show it (browser only).
    fn load(&self, id: String) {
        #[cfg(not(feature = "hydrate"))]
        let _ = id;
        #[cfg(feature = "hydrate")]
        {
            if self.loading.get_untracked().as_deref() == Some(id.as_str()) {
                return;
            }
            self.loading.set(Some(id.clone()));
            self.load_error.set(None);
            let store = *self;
            leptos::task::spawn_local(async move {
                let result = parse::fetch(id.clone()).await;
                if store.loading.get_untracked().as_deref() != Some(id.as_str()) {
                    return;
                }
                store.loading.set(None);
                match result {
                    Ok(Some(view)) => {
                        let key = store.next_key();
                        let record = store
                            .owner
                            .with_value(|o| o.with(|| store.session(key, Some(view), None)));
                        store.threads.update(|t| t.push(record));
                        store.active.set(key);
                    }
                    Ok(None) => store
                        .load_error
                        .set(Some("This thread no longer exists on the server.".into())),
                    Err(why) => store.load_error.set(Some(why)),
                }
            });
        }
    }

    /// Keeps the address bar on the thread shown (`/?thread=ID` for threads this server stores,
    /// `/` for threads of a foreign agent), so that a reload brings it back.
    pub fn sync_address_bar(&self) {
        #[cfg(feature = "hydrate")]
        {
            let store = *self;
            Effect::new(move |_| {
                let record = store.current();
                let id = record.agent.thread_id.get();
                let target = if is_local(&record.url.get()) && !id.is_empty() {
                    format!("/?thread={}", crate::wire::encode_segment(&id))
                } else {
                    "/".to_string()
                };
                crate::client::transport::replace_url(&target);
            });
        }
    }
}

/// The banner's error for a stored run that failed or was cut short by a server restart.
fn failed_run(run: &RunSummary) -> Option<(String, RunErrorView)> {
    let code = match run.status {
        RunState::Interrupted => Some(crate::wire::RunErrorCode::ServerRestarted.to_string()),
        RunState::Error => None,
        _ => return None,
    };
    let message = run
        .error
        .clone()
        .unwrap_or_else(|| "The run ended with an error.".into());
    Some((run.run_id.clone(), RunErrorView { message, code }))
}

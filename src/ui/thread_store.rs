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

use crate::client::session::{Connection, RunErrorView, UseAgentOptions, UseAgentReturn};
use crate::client::use_agent;
use crate::protocol::types::Message as Msg;
use crate::ui::util::truncate;
use crate::wire::DEFAULT_AGENT_URL;
use crate::wire::{RunState, RunSummary, ThreadSummary, ThreadView};

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
    owner: StoredValue<Owner>,
}

/// A request header the user typed for one Agent URL: sent to that URL only, never to this
/// server's own API (the browser's sign-in cookie speaks for the user there) nor to another
/// URL typed later.
#[derive(Clone, Copy)]
pub struct AgentHeader {
    /// `Name: value`, or a bare token meaning `Authorization: Bearer <token>`.
    pub value: RwSignal<String>,
    /// The Agent URL it was typed for.
    pub url: RwSignal<String>,
}

impl AgentHeader {
    pub fn new() -> Self {
        AgentHeader {
            value: RwSignal::new(String::new()),
            url: RwSignal::new(String::new()),
        }
    }

    /// The headers for a request to `target` (tracks the header and the URL it is for).
    pub fn for_url(&self, target: &str) -> Vec<(String, String)> {
        let value = self.value.get();
        let value = value.trim();
        if value.is_empty() || is_local(target) || self.url.with(|u| u != target) {
            return Vec::new();
        }
        match value.split_once(':') {
            Some((name, v))
                if !name.trim().is_empty()
                    && name
                        .trim()
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-') =>
            {
                vec![(name.trim().to_string(), v.trim().to_string())]
            }
            _ => vec![("Authorization".to_string(), format!("Bearer {value}"))],
        }
    }
}

impl Default for AgentHeader {
    fn default() -> Self {
        Self::new()
    }
}

/// The endpoint of a stored thread's agent.
fn agent_url(agent_id: Option<&str>) -> String {
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
    pub fn new(agent_header: AgentHeader, initial: InitialThreads) -> Self {
        let owner = Owner::current().unwrap_or_default();
        let store = ThreadStore {
            threads: RwSignal::new(Vec::new()),
            active: RwSignal::new(0),
            stored: RwSignal::new(initial.list),
            loading: RwSignal::new(None),
            load_error: RwSignal::new(None),
            agent_header,
            owner: StoredValue::new(owner),
        };
        let first = match initial.current {
            Some(view) => store.session(0, Some(view), None),
            None => store.session(0, None, initial.requested),
        };
        store.threads.set(vec![first]);
        store
    }

    /// A session: of a stored thread (`view`), or empty with `thread_id` (a fresh id if none).
    fn session(
        &self,
        key: usize,
        view: Option<ThreadView>,
        thread_id: Option<String>,
    ) -> ThreadRecord {
        let url_now = RwSignal::new(String::new());
        let agent_header = self.agent_header;
        let headers = Signal::derive(move || agent_header.for_url(&url_now.get()));
        let (url, options) = match view {
            Some(v) => {
                let follow = v
                    .runs
                    .last()
                    .filter(|r| r.status == RunState::Running)
                    .map(|r| r.run_id.clone());
                let failed_run = v.runs.last().and_then(failed_run);
                (
                    agent_url(v.agent_id.as_deref()),
                    UseAgentOptions {
                        url: Signal::default(),
                        headers,
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
                    },
                )
            }
            None => (
                DEFAULT_AGENT_URL.to_string(),
                UseAgentOptions {
                    url: Signal::default(),
                    headers,
                    tools: Vec::new(),
                    initial_messages: Vec::new(),
                    initial_state: None,
                    initial_thread_id: thread_id,
                    follow_run: None,
                    initial_render_hints: Vec::new(),
                    failed_run: None,
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
                // This server's own API: the sign-in cookie, no typed header.
                let url = crate::wire::thread_url(&id);
                let result = crate::client::transport::get_json::<ThreadView>(&url, &[]).await;
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
                    Err(e) => store
                        .load_error
                        .set(Some(format!("The thread could not be loaded: {e}"))),
                }
            });
        }
    }

    /// Read the stored threads again (browser only).
    pub fn refresh(&self) {
        #[cfg(feature = "hydrate")]
        {
            let store = *self;
            leptos::task::spawn_local(async move {
                let list = crate::client::transport::get_json::<crate::wire::ThreadList>(
                    crate::wire::THREADS_URL,
                    &[],
                )
                .await;
                if let Ok(Some(list)) = list {
                    store.stored.set(list.threads);
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

/// The thread's title: its first user message, shortened.
fn title_of(agent: UseAgentReturn) -> Option<String> {
    agent.messages.with(|m| {
        m.iter().find_map(|e| {
            e.msg.with(|msg| match msg {
                Msg::User(u) => Some(truncate(u.content.text().trim(), 60)),
                _ => None,
            })
        })
    })
}

/// The last path segment or the host of an endpoint, to tell threads' agents apart.
fn agent_label(url: &str) -> String {
    let trimmed = url.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

fn messages_label(n: u64) -> String {
    format!("{n} message{}", if n == 1 { "" } else { "s" })
}

/// An entry of the list: a thread open in the tab, or a stored thread not open yet.
#[derive(Clone)]
enum Entry {
    Open(ThreadRecord),
    Stored(ThreadSummary),
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum EntryKey {
    Open(usize),
    Stored(String, i64, u64),
}

impl Entry {
    fn key(&self) -> EntryKey {
        match self {
            Entry::Open(r) => EntryKey::Open(r.key),
            Entry::Stored(s) => EntryKey::Stored(s.id.clone(), s.updated_at, s.message_count),
        }
    }
}

/// The entries, most recent first: open threads the server does not list (new ones, foreign
/// agents) newest first, then the stored threads in the server's order, each shown by its open
/// session when it has one.
fn entries(open: &[ThreadRecord], stored: &[ThreadSummary]) -> Vec<Entry> {
    let id_of = |r: &ThreadRecord| r.agent.thread_id.get();
    let mut out: Vec<Entry> = open
        .iter()
        .rev()
        .filter(|r| {
            let id = id_of(r);
            !stored.iter().any(|s| s.id == id)
        })
        .map(|r| Entry::Open(*r))
        .collect();
    for s in stored {
        match open.iter().find(|r| id_of(r) == s.id) {
            Some(r) => out.push(Entry::Open(*r)),
            None => out.push(Entry::Stored(s.clone())),
        }
    }
    out
}

/// The thread list: a "New thread" button and one button per thread (most recent first, titled
/// by the first user message; `aria-current="true"` on the one shown).
#[component]
pub fn ThreadList(
    /// The threads.
    store: ThreadStore,
    /// Called after a thread was chosen or created (e.g. to close a drawer on phones).
    #[prop(optional, into)]
    on_pick: Option<Callback<()>>,
) -> impl IntoView {
    let picked = move || {
        if let Some(cb) = on_pick {
            cb.run(());
        }
    };
    let items = move || store.threads.with(|t| store.stored.with(|s| entries(t, s)));
    let open_view = move |r: ThreadRecord| {
        let key = r.key;
        let agent = r.agent;
        let is_current = move || store.active.get() == key;
        let title = move || title_of(agent).filter(|t| !t.is_empty());
        let count = move || agent.messages.with(Vec::len) as u64;
        view! {
            <li>
                <button
                    type="button"
                    class="thread-item"
                    class:current=is_current
                    aria-current=move || is_current().then_some("true")
                    on:click=move |_| {
                        store.active.set(key);
                        picked();
                    }
                >
                    <span class="thread-title">
                        {move || title().unwrap_or_else(|| "Untitled thread".into())}
                    </span>
                    <span class="thread-meta">
                        <span
                            class="thread-dot"
                            class:running=move || agent.is_running.get()
                            aria-hidden="true"
                        ></span>
                        {move || agent_label(&r.url.get())}
                        " · "
                        {move || messages_label(count())}
                        {move || {
                            if agent.is_running.get() {
                                return " · running";
                            }
                            agent.error.with(|e| match e {
                                Some(e)
                                    if e.code.as_deref()
                                        == Some(crate::wire::RunErrorCode::ServerRestarted.as_str()) =>
                                {
                                    " · interrupted"
                                }
                                Some(_) => " · failed",
                                None => "",
                            })
                        }}
                        {move || (!is_local(&r.url.get())).then_some(" · this tab only")}
                    </span>
                </button>
            </li>
        }
        .into_any()
    };
    let stored_view = move |s: ThreadSummary| {
        let id = s.id.clone();
        let busy = {
            let id = id.clone();
            move || store.loading.with(|l| l.as_deref() == Some(id.as_str()))
        };
        let title = if s.title.trim().is_empty() {
            "Untitled thread".to_string()
        } else {
            truncate(s.title.trim(), 60)
        };
        let last = s.last_run.as_ref().map(|r| r.status);
        let running = last == Some(RunState::Running);
        let agent = agent_label(&agent_url(s.agent_id.as_deref()));
        let meta = format!(
            "{agent} · {}{}",
            messages_label(s.message_count),
            match last {
                Some(RunState::Running) => " · running",
                Some(RunState::Interrupted) => " · interrupted",
                Some(RunState::Error) => " · failed",
                _ => "",
            }
        );
        view! {
            <li>
                <button
                    type="button"
                    class="thread-item"
                    data-thread-id=id.clone()
                    aria-busy=move || busy().to_string()
                    on:click=move |_| {
                        store.open(id.clone());
                        picked();
                    }
                >
                    <span class="thread-title">{title}</span>
                    <span class="thread-meta">
                        <span class="thread-dot" class:running=running aria-hidden="true"></span>
                        {meta}
                    </span>
                </button>
            </li>
        }
        .into_any()
    };
    view! {
        <nav class="threads" aria-label="Threads">
            <button
                type="button"
                class="btn new-thread"
                on:click=move |_| {
                    store.new_thread();
                    picked();
                }
            >
                <span aria-hidden="true" class="plus">"+"</span>
                " New thread"
            </button>
            <p class="thread-error" role="alert" hidden=move || store.load_error.with(Option::is_none)>
                {move || store.load_error.get()}
            </p>
            <ul class="thread-list">
                <For
                    each=items
                    key=Entry::key
                    children=move |e| match e {
                        Entry::Open(r) => open_view(r),
                        Entry::Stored(s) => stored_view(s),
                    }
                />
            </ul>
        </nav>
    }
    .into_any()
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

//! The threads of this browser tab, and the list to switch between them.
//!
//! Each thread is its own live `use_agent` session, created when the user clicks "New thread"
//! and kept for as long as the page is open. Switching back to a thread therefore shows it
//! exactly as it was — messages, state, events, pending approvals — and it can be continued (a
//! run still streaming in a thread you left keeps streaming). Nothing is stored on the server or
//! in the browser's storage: reloading the page starts over with one empty thread.

use leptos::prelude::*;

use crate::client::session::{UseAgentOptions, UseAgentReturn};
use crate::client::use_agent;
use crate::protocol::types::Message as Msg;
use crate::ui::agent_picker::DEFAULT_AGENT_URL;
use crate::ui::util::truncate;

/// One thread: its session and the endpoint it posts to.
#[derive(Clone, Copy)]
pub struct ThreadRecord {
    /// Unique in the tab (0 is the thread the page starts with).
    pub key: usize,
    pub url: RwSignal<String>,
    pub agent: UseAgentReturn,
}

/// The threads of the tab and which one is shown.
#[derive(Clone, Copy)]
pub struct ThreadStore {
    pub threads: RwSignal<Vec<ThreadRecord>>,
    pub active: RwSignal<usize>,
    headers: Signal<Vec<(String, String)>>,
    /// The studio's owner: sessions created from event handlers live as long as the studio.
    owner: StoredValue<Owner>,
}

impl ThreadStore {
    /// The store with one empty thread posting to [`DEFAULT_AGENT_URL`]. Call inside the
    /// component that owns the studio.
    pub fn new(headers: Signal<Vec<(String, String)>>) -> Self {
        let owner = Owner::current().unwrap_or_default();
        let first = session(0, DEFAULT_AGENT_URL.to_string(), headers);
        ThreadStore {
            threads: RwSignal::new(vec![first]),
            active: RwSignal::new(0),
            headers,
            owner: StoredValue::new(owner),
        }
    }

    /// The thread on screen (tracks `active`).
    pub fn current(&self) -> ThreadRecord {
        let key = self.active.get();
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
        let key = self
            .threads
            .with_untracked(|t| t.iter().map(|r| r.key).max().unwrap_or(0) + 1);
        let url = current.url.get_untracked();
        let headers = self.headers;
        let record = self
            .owner
            .with_value(|o| o.with(|| session(key, url, headers)));
        self.threads.update(|t| t.push(record));
        self.active.set(key);
    }

    /// The thread on screen, without tracking.
    pub fn current_untracked(&self) -> ThreadRecord {
        let key = self.active.get_untracked();
        self.threads
            .with_untracked(|t| t.iter().find(|r| r.key == key).or(t.first()).copied())
            .expect("the store always has a thread")
    }
}

fn session(key: usize, url: String, headers: Signal<Vec<(String, String)>>) -> ThreadRecord {
    let url = RwSignal::new(url);
    let agent = use_agent(UseAgentOptions {
        url: url.into(),
        headers,
        tools: Vec::new(),
        initial_messages: Vec::new(),
        initial_thread_id: None,
    });
    ThreadRecord { key, url, agent }
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

/// The thread list: a "New thread" button and one button per thread of this tab (newest first,
/// titled by the first user message; `aria-current="true"` on the one shown).
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
    let items = move || {
        let mut t = store.threads.get();
        t.reverse();
        t
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
            <ul class="thread-list">
                <For
                    each=items
                    key=|r| r.key
                    children=move |r| {
                        let key = r.key;
                        let agent = r.agent;
                        let is_current = move || store.active.get() == key;
                        let title = move || title_of(agent).filter(|t| !t.is_empty());
                        let count = move || agent.messages.with(Vec::len);
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
                                        {move || {
                                            let n = count();
                                            format!("{n} message{}", if n == 1 { "" } else { "s" })
                                        }}
                                        {move || agent.is_running.get().then_some(" · running")}
                                    </span>
                                </button>
                            </li>
                        }
                    }
                />
            </ul>
        </nav>
    }
    .into_any()
}

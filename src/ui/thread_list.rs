//! The thread list: "New thread", "Search threads" (the server searches its stored threads, the
//! tab's own are filtered here) and one [`ThreadItem`] per thread, most recent first.

use leptos::prelude::*;

use crate::client::session::UseAgentReturn;
use crate::protocol::types::Message as Msg;
use crate::ui::thread_item::ThreadItem;
use crate::ui::thread_store::{agent_url, is_local, ThreadRecord, ThreadStore};
use crate::ui::util::truncate;
use crate::wire::{RunState, ThreadSummary};

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

/// A stored title as the list shows it.
fn shown_title(title: &str) -> String {
    if title.trim().is_empty() {
        "Untitled thread".to_string()
    } else {
        truncate(title.trim(), 60)
    }
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
    Stored(String, i64, u64, String),
}

impl Entry {
    fn key(&self) -> EntryKey {
        match self {
            Entry::Open(r) => EntryKey::Open(r.key),
            Entry::Stored(s) => {
                EntryKey::Stored(s.id.clone(), s.updated_at, s.message_count, s.title.clone())
            }
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

/// Whether `title` matches a search (ignoring case).
fn matches_query(title: &str, query: &str) -> bool {
    title.to_lowercase().contains(&query.to_lowercase())
}

/// The thread list: "New thread", "Search threads" (the server searches its stored threads,
/// the tab's own are filtered here), and one entry per thread (most recent first, titled by
/// the user's title or the first user message, with a relative time; `aria-current="true"` on
/// the one shown), each with "Rename thread" and "Delete thread".
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
    store.keep_time();
    store.search_on_type();
    let query = move || store.query.with(|q| q.trim().to_string());
    let items = move || {
        let q = query();
        store.threads.with(|t| {
            if q.is_empty() {
                return store.stored.with(|s| entries(t, s));
            }
            let base = store.found.get().unwrap_or_else(|| {
                store.stored.with(|s| {
                    s.iter()
                        .filter(|x| matches_query(&x.title, &q))
                        .cloned()
                        .collect()
                })
            });
            entries(t, &base)
                .into_iter()
                .filter(|e| match e {
                    Entry::Open(r) => {
                        let id = r.agent.thread_id.get();
                        base.iter().any(|s| s.id == id)
                            || title_of(r.agent).is_some_and(|t| matches_query(&t, &q))
                    }
                    Entry::Stored(_) => true,
                })
                .collect()
        })
    };
    let nothing_found = move || !query().is_empty() && items().is_empty();
    let summary_of = move |id: &str| {
        store
            .stored
            .with(|s| s.iter().find(|x| x.id == id).cloned())
    };
    let open_view = move |r: ThreadRecord| {
        let key = r.key;
        let agent = r.agent;
        let id = agent.thread_id.get_untracked();
        let summary = Memo::new(move |_| {
            let id = agent.thread_id.get();
            summary_of(&id)
        });
        let title = Signal::derive(move || {
            summary
                .with(|s| s.as_ref().map(|s| s.title.clone()))
                .filter(|t| !t.trim().is_empty())
                .map(|t| shown_title(&t))
                .or_else(|| title_of(agent).filter(|t| !t.is_empty()))
                .unwrap_or_else(|| "Untitled thread".into())
        });
        let meta = Signal::derive(move || {
            let count = agent.messages.with(Vec::len) as u64;
            let status = if agent.is_running.get() {
                " · running"
            } else {
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
            };
            let tab_only = if is_local(&r.url.get()) {
                ""
            } else {
                " · this tab only"
            };
            format!(
                "{} · {}{status}{tab_only}",
                agent_label(&r.url.get()),
                messages_label(count)
            )
        });
        let updated_at = Signal::derive(move || summary.with(|s| s.as_ref().map(|s| s.updated_at)));
        let renamable = Signal::derive(move || summary.with(Option::is_some));
        view! {
            <ThreadItem
                thread_id=id
                title
                meta
                updated_at
                now=store.now
                current=Signal::derive(move || store.active.get() == key)
                running=agent.is_running
                busy=Signal::stored(false)
                renamable
                on_open=Callback::new(move |_| {
                    store.active.set(key);
                    picked();
                })
                on_rename=Callback::new(move |t: String| store.rename(agent.thread_id.get_untracked(), t))
                on_delete=Callback::new(move |_| store.delete(agent.thread_id.get_untracked()))
            />
        }
        .into_any()
    };
    let stored_view = move |s: ThreadSummary| {
        let id = s.id.clone();
        let busy = {
            let id = id.clone();
            Signal::derive(move || store.loading.with(|l| l.as_deref() == Some(id.as_str())))
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
        let (open_id, rename_id, delete_id) = (id.clone(), id.clone(), id.clone());
        view! {
            <ThreadItem
                thread_id=id
                title=Signal::stored(shown_title(&s.title))
                meta=Signal::stored(meta)
                updated_at=Signal::stored(Some(s.updated_at))
                now=store.now
                current=Signal::stored(false)
                running=Signal::stored(running)
                busy
                renamable=Signal::stored(true)
                on_open=Callback::new(move |_| {
                    store.open(open_id.clone());
                    picked();
                })
                on_rename=Callback::new(move |t: String| store.rename(rename_id.clone(), t))
                on_delete=Callback::new(move |_| store.delete(delete_id.clone()))
            />
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
            <input
                type="search"
                class="thread-search"
                aria-label="Search threads"
                placeholder="Search threads"
                maxlength=crate::wire::MAX_QUERY_CHARS
                prop:value=move || store.query.get()
                on:input=move |ev| store.query.set(event_target_value(&ev))
            />
            <p class="thread-error" role="alert" hidden=move || store.load_error.with(Option::is_none)>
                {move || store.load_error.get()}
            </p>
            <p class="thread-empty" role="status">
                {move || nothing_found().then_some("No thread matches this search.")}
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

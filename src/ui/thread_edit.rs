//! What the thread list does to threads besides opening them: rename (`PATCH`), delete
//! (`DELETE`; the tab's session goes too), search as the user types (`GET /api/threads?q=`),
//! list them again when a run ends, and the clock of the relative times. Browser only; inert
//! under SSR. The requests and what follows their answers are a chunk of their own
//! (`split_thread_edits`), fetched on first use: none is needed for the first paint.

use leptos::prelude::*;

use crate::ui::thread_store::{is_local, ThreadStore};

impl ThreadStore {
    /// Keep `now` on the browser's clock, every 30 s (browser only).
    pub fn keep_time(&self) {
        #[cfg(feature = "hydrate")]
        {
            let now = self.now;
            let tick = move || now.set(js_sys::Date::now() as i64);
            // After hydration: the first paint used the server's clock, as the server did.
            Effect::new(move |_| tick());
            let _ = set_interval_with_handle(tick, std::time::Duration::from_secs(30));
        }
    }

    /// Ask the server for the threads matching `query` as it changes (browser only); stale
    /// answers are dropped.
    pub fn search_on_type(&self) {
        #[cfg(feature = "hydrate")]
        {
            let store = *self;
            Effect::new(move |_| {
                let q = store.query.with(|q| q.trim().to_string());
                store.found.set(None);
                if q.is_empty() {
                    return;
                }
                leptos::task::spawn_local(async move {
                    // A short pause: typing on does not send a request per key.
                    crate::client::transport::sleep_ms(150).await;
                    if store.query.with_untracked(|x| x.trim() != q) {
                        return;
                    }
                    with_edits(store, "The threads could not be searched", move |e| {
                        (e.list)(store, Some(q))
                    })
                    .await;
                });
            });
        }
    }

    /// Read the stored threads again (browser only).
    pub fn refresh(&self) {
        #[cfg(feature = "hydrate")]
        {
            let store = *self;
            leptos::task::spawn_local(with_edits(
                store,
                "The threads could not be listed",
                move |e| (e.list)(store, None),
            ));
        }
    }

    /// Rename a stored thread (an empty title gives the automatic one back).
    pub fn rename(&self, id: String, title: String) {
        #[cfg(not(feature = "hydrate"))]
        let _ = (id, title);
        #[cfg(feature = "hydrate")]
        {
            let store = *self;
            leptos::task::spawn_local(with_edits(
                store,
                "The thread could not be renamed",
                move |e| (e.rename)(store, id, title),
            ));
        }
    }

    /// Delete a thread: on this server when it stores it (409 while a run of it is in
    /// progress), and its session in this tab.
    pub fn delete(&self, id: String) {
        let stored = self.stored.with_untracked(|s| s.iter().any(|t| t.id == id))
            || self.threads.with_untracked(|t| {
                t.iter().any(|r| {
                    r.agent.thread_id.with_untracked(|x| *x == id)
                        && r.url.with_untracked(|u| is_local(u))
                })
            });
        #[cfg(not(feature = "hydrate"))]
        let _ = (id, stored);
        #[cfg(feature = "hydrate")]
        {
            let store = *self;
            leptos::task::spawn_local(with_edits(
                store,
                "The thread could not be deleted",
                move |e| (e.delete)(store, id, stored),
            ));
        }
    }

    /// Remove a deleted thread from the lists and close its session; another thread is shown
    /// (a new one when none is left).
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn forget(&self, id: &str) {
        self.stored.update(|s| s.retain(|t| t.id != id));
        self.found.update(|f| {
            if let Some(f) = f {
                f.retain(|t| t.id != id)
            }
        });
        self.ratings.by_thread.update(|b| drop(b.remove(id)));
        let gone: Vec<usize> = self.threads.with_untracked(|t| {
            t.iter()
                .filter(|r| r.agent.thread_id.with_untracked(|x| x == id))
                .map(|r| r.key)
                .collect()
        });
        if gone.is_empty() {
            return;
        }
        let showing = gone.contains(&self.active.get_untracked());
        self.threads
            .update(|t| t.retain(|r| !gone.contains(&r.key)));
        if self.threads.with_untracked(Vec::is_empty) {
            let key = gone.iter().max().copied().unwrap_or(0) + 1;
            let store = *self;
            let record = self
                .owner
                .with_value(|o| o.with(|| store.session(key, None, None)));
            self.threads.update(|t| t.push(record));
            self.active.set(key);
        } else if showing {
            let key = self
                .threads
                .with_untracked(|t| t.last().map(|r| r.key))
                .unwrap_or(0);
            self.active.set(key);
        }
    }
}

/// What renaming and deleting do over the network: a chunk of its own, fetched on first use.
#[cfg(feature = "hydrate")]
struct Edits {
    rename: fn(ThreadStore, String, String) -> Edit,
    delete: fn(ThreadStore, String, bool) -> Edit,
    /// The stored threads (no query) or those matching a search.
    list: fn(ThreadStore, Option<String>) -> Edit,
}

#[cfg(feature = "hydrate")]
type Edit = std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>;

#[cfg(feature = "hydrate")]
static EDITS: Edits = Edits {
    rename: |store, id, title| Box::pin(rename_now(store, id, title)),
    delete: |store, id, stored| Box::pin(delete_now(store, id, stored)),
    list: |store, query| Box::pin(list_now(store, query)),
};

crate::client::chunk::split_fn!(
    thread_edits,
    __preload_thread_edits,
    /// The table, from the chunk (the only reference to [`EDITS`]).
    #[cfg(feature = "hydrate")]
    fn edits() -> &'static Edits {
        &EDITS
    }
);

/// Runs an edit once its chunk is there; one that cannot be fetched is said in the banner,
/// after `failed` ("The thread could not be renamed").
#[cfg(feature = "hydrate")]
async fn with_edits(store: ThreadStore, failed: &'static str, edit: impl FnOnce(&Edits) -> Edit) {
    match edits().await {
        Ok(e) => edit(e).await,
        Err(_) => store.load_error.set(Some(crate::client::chunk::unfetched(
            failed,
            crate::client::chunk::RELOAD_TO_RETRY,
        ))),
    }
}

#[cfg(feature = "hydrate")]
async fn list_now(store: ThreadStore, query: Option<String>) {
    let url = match &query {
        Some(q) => format!(
            "{}?q={}",
            crate::wire::THREADS_URL,
            js_sys::encode_uri_component(q)
        ),
        None => crate::wire::THREADS_URL.to_string(),
    };
    let list = crate::client::transport::get_json::<crate::wire::ThreadList>(&url, &[]).await;
    let Ok(Some(list)) = list else { return };
    match query {
        None => store.stored.set(list.threads),
        // Stale answers are dropped.
        Some(q) if store.query.with_untracked(|x| x.trim() == q) => {
            store.found.set(Some(list.threads))
        }
        Some(_) => {}
    }
}

#[cfg(feature = "hydrate")]
async fn rename_now(store: ThreadStore, id: String, title: String) {
    let body = serde_json::to_string(&crate::wire::RenameThread { title }).unwrap_or_default();
    let url = crate::wire::thread_url(&id);
    match crate::client::transport::send_json("PATCH", &url, Some(&body)).await {
        Ok((200, text)) => {
            let title = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v["title"].as_str().map(str::to_string))
                .unwrap_or_default();
            store.load_error.set(None);
            let retitle = |l: &mut Vec<crate::wire::ThreadSummary>| {
                if let Some(t) = l.iter_mut().find(|t| t.id == id) {
                    t.title = title.clone();
                }
            };
            store.stored.update(retitle);
            store.found.update(|f| {
                if let Some(f) = f {
                    retitle(f)
                }
            });
        }
        Ok((status, text)) => store.load_error.set(Some(format!(
            "The thread could not be renamed: HTTP {status} {text}"
        ))),
        Err(e) => store
            .load_error
            .set(Some(format!("The thread could not be renamed: {e}"))),
    }
}

#[cfg(feature = "hydrate")]
async fn delete_now(store: ThreadStore, id: String, stored: bool) {
    if stored {
        let url = crate::wire::thread_url(&id);
        match crate::client::transport::send_json("DELETE", &url, None).await {
            Ok((204 | 404, _)) => {}
            Ok((409, _)) => {
                return store.load_error.set(Some(
                    "A run of this thread is in progress: stop it first.".into(),
                ))
            }
            Ok((status, text)) => {
                return store.load_error.set(Some(format!(
                    "The thread could not be deleted: HTTP {status} {text}"
                )))
            }
            Err(e) => {
                return store
                    .load_error
                    .set(Some(format!("The thread could not be deleted: {e}")))
            }
        }
    }
    store.load_error.set(None);
    store.forget(&id);
}

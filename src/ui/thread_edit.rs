//! What the thread list does to threads besides opening them: rename (`PATCH`), delete
//! (`DELETE`; the tab's session goes too), search as the user types (`GET /api/threads?q=`),
//! and the clock of the relative times. Browser only; inert under SSR.

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
                    let url = format!(
                        "{}?q={}",
                        crate::wire::THREADS_URL,
                        js_sys::encode_uri_component(&q)
                    );
                    let list =
                        crate::client::transport::get_json::<crate::wire::ThreadList>(&url, &[])
                            .await;
                    if store.query.with_untracked(|x| x.trim() != q) {
                        return;
                    }
                    if let Ok(Some(list)) = list {
                        store.found.set(Some(list.threads));
                    }
                });
            });
        }
    }

    /// Rename a stored thread (an empty title gives the automatic one back).
    pub fn rename(&self, id: String, title: String) {
        #[cfg(not(feature = "hydrate"))]
        let _ = (id, title);
        #[cfg(feature = "hydrate")]
        {
            let store = *self;
            leptos::task::spawn_local(async move {
                let body =
                    serde_json::to_string(&crate::wire::RenameThread { title }).unwrap_or_default();
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
            });
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
            leptos::task::spawn_local(async move {
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
            });
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

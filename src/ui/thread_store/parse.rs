//! A stored thread's parse in the browser (its messages, runs, hints and ratings) is a chunk of
//! its own: fetched before hydration on a page the server rendered with a stored thread (the
//! marker [`MARKER`]), and when a stored thread is opened from the list (with the request that
//! fetches it). The first load of a page without one carries no parse of messages.

use leptos::prelude::*;
use serde_json::Value;

use crate::wire::{StoredThread, ThreadView};

/// The marker the server renders on a page that starts with a stored thread.
pub const MARKER: &str = "thread";

/// A stored thread's code: its parse, and the request that opens one from the list.
struct ThreadCode {
    parse: fn(Value) -> Result<ThreadView, String>,
    #[cfg(feature = "hydrate")]
    fetch: fn(String) -> Fetching,
}

#[cfg(feature = "hydrate")]
type Fetching =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Option<ThreadView>, String>>>>;

static CODE: ThreadCode = ThreadCode {
    parse: |json| serde_json::from_value(json).map_err(|e| e.to_string()),
    #[cfg(feature = "hydrate")]
    fetch: |id| Box::pin(fetch_now(id)),
};

crate::client::chunk::split_fn!(
    thread_parse,
    __preload_thread_parse,
    /// The table, from the chunk (the only reference to [`CODE`]).
    fn code() -> &'static ThreadCode {
        &CODE
    }
);

fn unfetched() -> String {
    crate::client::chunk::unfetched(
        "The thread cannot be shown",
        crate::client::chunk::RELOAD_TO_SEE,
    )
}

/// The thread, parsed: at once if it already is (on the server), else by the chunk. `Err` says
/// why it cannot be shown, in words for the page.
pub async fn parse(thread: StoredThread) -> Result<ThreadView, String> {
    match thread {
        StoredThread::Parsed(view) => Ok(view),
        StoredThread::Json(json) => match code().await {
            Ok(code) => {
                (code.parse)(json).map_err(|e| format!("The thread could not be read: {e}"))
            }
            Err(_) => Err(unfetched()),
        },
    }
}

/// The stored thread the page starts with, taken out of `initial` and parsed (see [`parse`]).
pub async fn take_current(
    initial: &mut crate::wire::InitialThreads,
) -> Option<Result<ThreadView, String>> {
    match initial.current.take() {
        Some(thread) => Some(parse(thread).await),
        None => None,
    }
}

/// The stored thread `id` from the server (`None`: it no longer exists), for the list's
/// "open" (browser only).
#[cfg(feature = "hydrate")]
pub async fn fetch(id: String) -> Result<Option<ThreadView>, String> {
    match code().await {
        Ok(code) => (code.fetch)(id).await,
        Err(_) => Err(unfetched()),
    }
}

#[cfg(feature = "hydrate")]
async fn fetch_now(id: String) -> Result<Option<ThreadView>, String> {
    // This server's own API: the sign-in cookie, no typed header.
    let url = crate::wire::thread_url(&id);
    crate::client::transport::get_json::<ThreadView>(&url, &[])
        .await
        .map_err(|e| format!("The thread could not be loaded: {e}"))
}

/// The marker of a page that starts with a stored thread (nothing otherwise).
pub fn marker(shown: bool) -> impl IntoView {
    shown.then(|| view! { <template data-lazy=MARKER></template> })
}

/// Loads the chunk before hydration when the server rendered a stored thread.
#[cfg(feature = "hydrate")]
pub async fn preload_rendered() {
    crate::ui::lazy::load_if_rendered(MARKER, __preload_thread_parse).await;
}

//! A stored thread's parse in the browser (its messages, runs, hints and ratings) is a chunk of
//! its own: fetched before hydration on a page the server rendered with a stored thread (the
//! marker [`MARKER`]), and when a stored thread is opened from the list. The first load of a
//! page without one carries no parse of messages.

use leptos::prelude::*;
use serde_json::Value;

use crate::wire::{StoredThread, ThreadView};

/// The marker the server renders on a page that starts with a stored thread.
pub const MARKER: &str = "thread";

#[leptos::wasm_split::wasm_split(
    thread_parse,
    wasm_split_path = ::leptos::wasm_split,
    fallible,
    preload(#[doc(hidden)] __preload_thread_parse)
)]
fn parse_json(
    json: Value,
) -> Result<Result<ThreadView, String>, leptos::wasm_split::SplitLoaderError> {
    Ok(serde_json::from_value(json).map_err(|e| e.to_string()))
}

/// The thread, parsed: at once if it already is (on the server), else by the chunk. `Err` says
/// why it cannot be shown, in words for the page.
pub async fn parse(thread: StoredThread) -> Result<ThreadView, String> {
    match thread {
        StoredThread::Parsed(view) => Ok(view),
        StoredThread::Json(json) => match parse_json(json).await {
            Ok(parsed) => parsed.map_err(|e| format!("The thread could not be read: {e}")),
            Err(_) => Err(
                "The thread cannot be shown: the page's code for it could not be \
                           fetched. Reload the page to see it."
                    .into(),
            ),
        },
    }
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

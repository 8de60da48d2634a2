//! Export and open: the thread's events (or one run's) as JSON Lines, downloaded; and a
//! recording opened from a file and replayed in a new thread by the session.

use std::sync::Arc;

use leptos::prelude::*;

use super::sources::Sources;
use crate::client::event_log::to_jsonl;
#[cfg(feature = "hydrate")]
use crate::client::event_log::MAX_RECORDING_BYTES;

/// A file name from an id: letters, digits, `-` and `_` only.
pub fn file_name(prefix: &str, id: &str) -> String {
    let id: String = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(80)
        .collect();
    format!("{prefix}{id}.jsonl")
}

#[component]
pub(super) fn Files(
    src: Sources,
    run: RwSignal<Option<Arc<str>>>,
    thread_id: Signal<String>,
    on_open_recording: Callback<Vec<u8>>,
) -> impl IntoView {
    let note = RwSignal::new(None::<String>);
    let export = move |only: Option<Arc<str>>| {
        let text = src.with_untracked(|h, l| {
            to_jsonl(
                h.iter()
                    .chain(l.iter())
                    .filter(|r| only.as_ref().is_none_or(|id| *id == r.run_id)),
            )
        });
        let name = match &only {
            Some(id) => file_name("run-", id),
            None => file_name("", &thread_id.get_untracked()),
        };
        download(&name, &text);
    };
    let on_file = move |ev: leptos::ev::Event| {
        note.set(None);
        read_file(ev, note, on_open_recording);
    };
    view! {
        <div class="inspector-files">
            <button
                type="button"
                class="btn small"
                aria-label="Export thread"
                title="Download the thread's events as JSON Lines"
                disabled=move || src.with(|h, l| h.is_empty() && l.is_empty())
                on:click=move |_| export(None)
            >
                "Export"
            </button>
            <Show when=move || run.with(Option::is_some)>
                <button
                    type="button"
                    class="btn small"
                    title="Download this run's events as JSON Lines"
                    on:click=move |_| export(run.get_untracked())
                >
                    "Export run"
                </button>
            </Show>
            <label
                class="btn small file-button"
                title="Replay a recording (JSON Lines, JSON or raw SSE) in a new thread"
            >
                "Open…"
                <input
                    aria-label="Open recording…"
                    type="file"
                    class="visually-hidden"
                    accept=".jsonl,.ndjson,.json,.sse,.txt,.log,text/event-stream,application/json"
                    on:change=on_file
                />
            </label>
            {move || note.get().map(|n| view! { <p class="inspector-note" role="alert">{n}</p> })}
        </div>
    }
}

#[cfg(feature = "hydrate")]
fn download(name: &str, text: &str) {
    use leptos::wasm_bindgen::{JsCast, JsValue};
    use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let bag = BlobPropertyBag::new();
    bag.set_type("application/jsonl");
    let Ok(blob) = Blob::new_with_str_sequence_and_options(&parts, &bag) else {
        return;
    };
    let Ok(url) = Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let anchor = document()
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<HtmlAnchorElement>().ok());
    if let Some(a) = anchor {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    set_timeout(
        move || {
            let _ = Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(30),
    );
}

#[cfg(not(feature = "hydrate"))]
fn download(_name: &str, _text: &str) {}

#[cfg(feature = "hydrate")]
fn read_file(ev: leptos::ev::Event, note: RwSignal<Option<String>>, open: Callback<Vec<u8>>) {
    use leptos::wasm_bindgen::JsCast;
    let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    input.set_value("");
    let max = MAX_RECORDING_BYTES as f64;
    if file.size() > max {
        note.set(Some(format!(
            "{} is {:.0} MB; at most {:.0} MB can be opened.",
            file.name(),
            file.size() / 1_048_576.0,
            max / 1_048_576.0
        )));
        return;
    }
    leptos::task::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
            Ok(buf) => open.run(js_sys::Uint8Array::new(&buf).to_vec()),
            Err(_) => note.set(Some(format!("Could not read {}.", file.name()))),
        }
    });
}

#[cfg(not(feature = "hydrate"))]
fn read_file(_: leptos::ev::Event, _: RwSignal<Option<String>>, _: Callback<Vec<u8>>) {}

#[cfg(test)]
mod tests {
    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(super::file_name("run-", "r-1/../x"), "run-r-1x.jsonl");
        assert_eq!(super::file_name("", "thread-ab"), "thread-ab.jsonl");
        assert_eq!(super::file_name("", &"a".repeat(500)).len(), 86);
    }
}

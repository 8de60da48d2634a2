//! The message composer: a textarea (Enter sends, Shift+Enter adds a line), file attachments
//! read in the browser as base64 content parts, and one button that is "Send" while idle and
//! "Stop" while a run streams.

use leptos::prelude::*;
use serde_json::json;

use crate::client::session::SendInput;
use crate::protocol::types::{ContentPart, MediaPart, PartSource};
use crate::ui::util::human_bytes;

/// Files larger than this are refused (the server's default body limit is a few MB; base64
/// grows a file by a third).
pub const MAX_ATTACHMENT_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// A file attached to the next message.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    pub id: usize,
    pub name: String,
    pub mime: String,
    pub size: u64,
    pub part: ContentPart,
}

/// The content part of a file read as a `data:` URL: image, audio or video by MIME type, else
/// a document; the source holds the base64 payload without the `data:…;base64,` prefix. `None`
/// when `data_url` is not a base64 data URL.
pub fn part_from_data_url(name: &str, mime: &str, data_url: &str) -> Option<ContentPart> {
    let (head, payload) = data_url.strip_prefix("data:")?.split_once(',')?;
    if !head.ends_with(";base64") {
        return None;
    }
    let mime = match mime.trim() {
        "" => head.trim_end_matches(";base64").to_string(),
        m => m.to_string(),
    };
    let mime = if mime.is_empty() {
        "application/octet-stream".to_string()
    } else {
        mime
    };
    let part = MediaPart {
        source: PartSource::Data {
            value: payload.to_string(),
            mime_type: mime.clone(),
        },
        id: None,
        metadata: Some(json!({ "filename": name })),
    };
    Some(match mime.split('/').next().unwrap_or("") {
        "image" => ContentPart::Image(part),
        "audio" => ContentPart::Audio(part),
        "video" => ContentPart::Video(part),
        _ => ContentPart::Document(part),
    })
}

/// The composer: a form with the "Message" textarea, the "Attach files" file input, the chips
/// of attached files (each with a "Remove <name>" button) and the "Send"/"Stop" button.
#[component]
pub fn Composer(
    /// Called with the message to send.
    #[prop(into)]
    on_send: Callback<SendInput>,
    /// Called when the user stops the run.
    #[prop(into)]
    on_stop: Callback<()>,
    /// Whether a run streams (the button is "Stop" then, and Enter does not send).
    #[prop(into)]
    is_running: Signal<bool>,
    /// Placeholder of the textarea.
    #[prop(optional, into)]
    placeholder: Option<String>,
    /// Whether the agent takes attachments (its capabilities say which media it accepts); the
    /// "Attach files" button is hidden when not. Unset: allowed.
    #[prop(optional, into)]
    attachments_allowed: Option<Signal<bool>>,
    /// The text of a message that could not be sent: taken back into an empty textarea.
    #[prop(optional, into)]
    unsent: Option<Signal<Option<String>>>,
) -> impl IntoView {
    let attachments_allowed = attachments_allowed.unwrap_or_else(|| Signal::stored(true));
    let text = RwSignal::new(String::new());
    let attachments = RwSignal::new(Vec::<Attachment>::new());
    let notice = RwSignal::new(None::<String>);
    let textarea = NodeRef::<leptos::html::Textarea>::new();
    if let Some(unsent) = unsent {
        Effect::new(move |_| {
            if let Some(t) = unsent.get() {
                if text.with_untracked(String::is_empty) {
                    text.set(t);
                }
            }
        });
    }
    let can_send = move || !text.with(|t| t.trim().is_empty()) || !attachments.with(Vec::is_empty);

    let send = move || {
        if is_running.get_untracked() || !can_send() {
            return;
        }
        let input = SendInput {
            text: text.get_untracked().trim_end().to_string(),
            attachments: attachments
                .get_untracked()
                .into_iter()
                .map(|a| a.part)
                .collect(),
            forwarded_props: None,
        };
        text.set(String::new());
        attachments.set(Vec::new());
        notice.set(None);
        on_send.run(input);
        if let Some(el) = textarea.get_untracked() {
            let _ = el.focus();
        }
    };

    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if is_running.get_untracked() {
            on_stop.run(());
        } else {
            send();
        }
    };
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
            ev.prevent_default();
            send();
        }
    };
    let on_files = move |ev: leptos::ev::Event| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            if let Some(input) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            {
                // The reading is a chunk of its own, fetched on the first file chosen.
                leptos::task::spawn_local(async move {
                    if read_files(input, attachments, notice).await.is_err() {
                        use crate::client::chunk::{unfetched, RELOAD_TO_RETRY};
                        notice.set(Some(unfetched("The files cannot be read", RELOAD_TO_RETRY)));
                    }
                });
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = ev;
    };

    let chips = move || {
        attachments
            .get()
            .into_iter()
            .map(|a| {
                let id = a.id;
                let label = format!("Remove {}", a.name);
                let kind = match a.part {
                    ContentPart::Image(_) => "image",
                    ContentPart::Audio(_) => "audio",
                    ContentPart::Video(_) => "video",
                    _ => "document",
                };
                view! {
                    <li class="attachment-chip" data-kind=kind>
                        <span class="attachment-name">{a.name.clone()}</span>
                        <span class="attachment-size">{human_bytes(a.size)}</span>
                        <button
                            type="button"
                            class="icon-btn small"
                            aria-label=label.clone()
                            title=label
                            on:click=move |_| attachments.update(|v| v.retain(|x| x.id != id))
                        >
                            "×"
                        </button>
                    </li>
                }
            })
            .collect_view()
    };

    let placeholder = placeholder
        .unwrap_or_else(|| "Message the agent — Enter to send, Shift+Enter for a new line".into());
    view! {
        <form class="composer" on:submit=on_submit>
            <ul
                class="attachments"
                aria-label="Attachments"
                hidden=move || attachments.with(Vec::is_empty)
            >
                {chips}
            </ul>
            <p class="composer-notice" role="alert" hidden=move || notice.with(Option::is_none)>
                {move || notice.get()}
            </p>
            <div class="composer-row">
                <label
                    class="attach-btn"
                    title="Attach files"
                    hidden=move || !attachments_allowed.get()
                >
                    <span class="visually-hidden">"Attach files"</span>
                    <svg
                        class="attach-icon"
                        aria-hidden="true"
                        viewBox="0 0 24 24"
                        width="20"
                        height="20"
                        fill="none"
                        stroke="currentColor"
                        stroke-width="2"
                        stroke-linecap="round"
                        stroke-linejoin="round"
                    >
                        <path d="M21.44 11.05l-9.19 9.19a6 6 0 0 1-8.49-8.49l9.19-9.19a4 4 0 0 1 5.66 5.66l-9.2 9.19a2 2 0 0 1-2.83-2.83l8.49-8.48"></path>
                    </svg>
                    <input
                        type="file"
                        multiple
                        class="file-input"
                        aria-label="Attach files"
                        on:change=on_files
                        disabled=move || !attachments_allowed.get()
                    />
                </label>
                <textarea
                    node_ref=textarea
                    id="composer-input"
                    class="composer-input"
                    aria-label="Message"
                    name="message"
                    rows="1"
                    placeholder=placeholder
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                    on:keydown=on_keydown
                ></textarea>
                <button
                    type="submit"
                    class="btn send-btn"
                    class:primary=move || !is_running.get()
                    class:danger=move || is_running.get()
                    disabled=move || !is_running.get() && !can_send()
                >
                    {move || if is_running.get() { "Stop" } else { "Send" }}
                </button>
            </div>
        </form>
    }
    .into_any()
}

crate::client::chunk::split_fn!(
    attachments,
    __preload_attachments,
    /// [`read_now`], from its chunk: fetched on the first file chosen.
    #[cfg(feature = "hydrate")]
    fn read_files(
        input: web_sys::HtmlInputElement,
        attachments: RwSignal<Vec<Attachment>>,
        notice: RwSignal<Option<String>>,
    ) -> () {
        read_now(input, attachments, notice)
    }
);

/// Read the chosen files as data URLs and add them as attachments (browser only).
#[cfg(feature = "hydrate")]
fn read_now(
    input: web_sys::HtmlInputElement,
    attachments: RwSignal<Vec<Attachment>>,
    notice: RwSignal<Option<String>>,
) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    static NEXT: AtomicUsize = AtomicUsize::new(1);

    let Some(files) = input.files() else {
        return;
    };
    for i in 0..files.length() {
        let Some(file) = files.get(i) else { continue };
        let name = file.name();
        let mime = file.type_();
        let size = file.size();
        if size > MAX_ATTACHMENT_BYTES {
            notice.set(Some(format!(
                "{name} is too large ({}); the limit is {}.",
                human_bytes(size as u64),
                human_bytes(MAX_ATTACHMENT_BYTES as u64)
            )));
            continue;
        }
        let Ok(reader) = web_sys::FileReader::new() else {
            continue;
        };
        let r = reader.clone();
        let onload = Closure::once_into_js(move || {
            let url = r
                .result()
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default();
            match part_from_data_url(&name, &mime, &url) {
                Some(part) => attachments.update(|a| {
                    a.push(Attachment {
                        id: NEXT.fetch_add(1, Ordering::Relaxed),
                        name,
                        mime,
                        size: size as u64,
                        part,
                    })
                }),
                None => notice.set(Some(format!("Could not read {name}."))),
            }
        });
        reader.set_onload(Some(onload.unchecked_ref()));
        if reader.read_as_data_url(&file).is_err() {
            notice.set(Some("Could not read the file.".into()));
        }
    }
    // Let the same file be chosen again.
    input.set_value("");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_urls_become_parts_by_mime() {
        let p = part_from_data_url("a.png", "image/png", "data:image/png;base64,AAAA").unwrap();
        match p {
            ContentPart::Image(m) => assert_eq!(
                m.source,
                PartSource::Data {
                    value: "AAAA".into(),
                    mime_type: "image/png".into()
                }
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            part_from_data_url(
                "x.pdf",
                "application/pdf",
                "data:application/pdf;base64,AA=="
            ),
            Some(ContentPart::Document(_))
        ));
        assert!(matches!(
            part_from_data_url("x.bin", "", "data:;base64,AA=="),
            Some(ContentPart::Document(MediaPart { source: PartSource::Data { ref mime_type, .. }, .. })) if mime_type == "application/octet-stream"
        ));
        assert!(part_from_data_url("x", "text/plain", "data:text/plain,hi").is_none());
    }
}

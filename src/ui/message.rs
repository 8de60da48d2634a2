//! One message of the transcript, rendered by role: assistant text as markdown with its tool
//! calls, user text as plain text with its attachments, reasoning, activities, system and
//! developer notes, and tool results that no tool-call card shows.
//!
//! Agent output is untrusted: text goes in as text nodes (markdown is rendered to nodes by
//! [`Markdown`]); media are shown only from inline raster `data:` images, never loaded from URLs.

use leptos::prelude::*;

use crate::protocol::types::{Content, ContentPart, Message as Msg, PartSource, Role, ToolCall};
use crate::ui::activity::Activity;
use crate::ui::markdown::Markdown;
use crate::ui::message_actions::{EditMessage, MessageActions};
use crate::ui::reasoning::Reasoning;
use crate::ui::tool_call::ToolCallCard;
use crate::ui::util::{human_bytes, pretty_json};

/// A message of the transcript, its code a chunk loaded the first time a message is shown
/// (with markdown, tool-call cards, reasoning and activities: none of them is needed by a page
/// without messages; see [`crate::ui::lazy`]).
pub fn on_demand_message(message: ArcRwSignal<Msg>, streaming: Signal<bool>) -> AnyView {
    crate::ui::lazy::on_demand(
        MARKER,
        "This message",
        message_view(message.into(), streaming),
    )
}

/// The marker of the messages' chunk.
const MARKER: &str = "message";

crate::ui::lazy::split_view!(
    message_view,
    __preload_message_view,
    fn message_view(message: Signal<Msg>, streaming: Signal<bool>) {
        view! { <Message message streaming/> }.into_any()
    }
);

/// Loads the messages' chunk if the server rendered a message into this page; called before
/// hydration (see [`crate::ui::lazy`]).
#[cfg(feature = "hydrate")]
pub async fn preload_rendered() {
    crate::ui::lazy::load_if_rendered(MARKER, __preload_message_view).await;
}

/// Loads the messages' chunk (also while the page is idle after hydration, with a run's code:
/// the first message then shows at once); a failure is left to the message that needs it.
#[cfg(feature = "hydrate")]
pub async fn preload() {
    let _ = __preload_message_view().await;
}

/// A message of any role (`data-role` on the wrapper says which).
#[component]
pub fn Message(
    /// The message; only what changed in it is re-rendered.
    #[prop(into)]
    message: Signal<Msg>,
    /// Whether this message is the one streaming now (assistant caret, reasoning "Thinking…").
    #[prop(optional, into)]
    streaming: Signal<bool>,
) -> impl IntoView {
    let role = Memo::new(move |_| message.with(Msg::role));
    move || match role.get() {
        Role::Assistant => view! { <AssistantBody message streaming/> }.into_any(),
        Role::User => view! { <UserBody message/> }.into_any(),
        Role::Reasoning => view! { <Reasoning message streaming/> }.into_any(),
        Role::Activity => view! { <Activity message/> }.into_any(),
        Role::Tool => view! { <ToolResultBody message/> }.into_any(),
        r @ (Role::System | Role::Developer) => {
            let label = if r == Role::System {
                "System"
            } else {
                "Developer"
            };
            let text = Memo::new(move |_| message.with(|m| m.text().unwrap_or_default()));
            view! {
                <div class="msg msg-system" data-role=r.as_str()>
                    <div class="msg-label">{label}</div>
                    <p class="plain">{move || text.get()}</p>
                </div>
            }
            .into_any()
        }
    }
}

#[component]
fn AssistantBody(message: Signal<Msg>, streaming: Signal<bool>) -> impl IntoView {
    let text = Memo::new(move |_| {
        message.with(|m| match m {
            Msg::Assistant(a) => a.content.clone().unwrap_or_default(),
            _ => String::new(),
        })
    });
    let name = Memo::new(move |_| {
        message.with(|m| match m {
            Msg::Assistant(a) => a.name.clone(),
            _ => None,
        })
    });
    let call_ids = Memo::new(move |_| {
        message.with(|m| match m {
            Msg::Assistant(a) => a
                .tool_calls
                .iter()
                .flatten()
                .map(|c| c.id.clone())
                .collect(),
            _ => Vec::<String>::new(),
        })
    });
    let has_text = move || text.with(|t| !t.trim().is_empty());
    let typing = move || streaming.get() && !has_text() && call_ids.with(Vec::is_empty);
    view! {
        <div
            class="msg msg-assistant"
            class:streaming=move || streaming.get()
            data-role="assistant"
        >
            <div class="msg-label">
                {move || name.get().unwrap_or_else(|| "Assistant".into())}
            </div>
            <Show when=has_text>
                <div class="msg-bubble">
                    <Markdown text=text/>
                </div>
            </Show>
            <Show when=typing>
                <div class="typing" aria-label="The assistant is typing" role="img">
                    <span></span>
                    <span></span>
                    <span></span>
                </div>
            </Show>
            <For
                each=move || call_ids.get()
                key=|id| id.clone()
                children=move |id| {
                    let call = Memo::new(move |_| {
                        message
                            .with(|m| match m {
                                Msg::Assistant(a) => {
                                    a.tool_calls.iter().flatten().find(|c| c.id == id).cloned()
                                }
                                _ => None,
                            })
                            .unwrap_or_else(|| ToolCall::new(id.clone(), String::new()))
                    });
                    view! { <ToolCallCard call/> }
                }
            />
            <Show when=move || !streaming.get()>
                <MessageActions message/>
            </Show>
        </div>
    }
    .into_any()
}

#[component]
fn UserBody(message: Signal<Msg>) -> impl IntoView {
    let content = Memo::new(move |_| match message.get() {
        Msg::User(u) => u.content,
        _ => Content::Text(String::new()),
    });
    let name = Memo::new(move |_| match message.get() {
        Msg::User(u) => u.name,
        _ => None,
    });
    let text = move || content.with(Content::text);
    let parts = move || match content.get() {
        Content::Parts(parts) => parts
            .into_iter()
            .filter(|p| !matches!(p, ContentPart::Text(_)))
            .map(|p| view! { <li>{part_view(&p)}</li> })
            .collect_view()
            .into_any(),
        Content::Text(_) => ().into_any(),
    };
    let has_parts = move || {
        content.with(|c| matches!(c, Content::Parts(p) if p.iter().any(|x| !matches!(x, ContentPart::Text(_)))))
    };
    let editing = RwSignal::new(false);
    view! {
        <div class="msg msg-user" data-role="user">
            <div class="msg-label">{move || name.get().unwrap_or_else(|| "You".into())}</div>
            <Show when=move || editing.get()>
                <EditMessage message editing/>
            </Show>
            <div class="msg-bubble" hidden=move || editing.get()>
                <Show when=move || !text().is_empty()>
                    <p class="plain">{text}</p>
                </Show>
                <Show when=has_parts>
                    <ul class="msg-attachments" aria-label="Attachments">
                        {parts}
                    </ul>
                </Show>
            </div>
            <MessageActions message editing/>
        </div>
    }
    .into_any()
}

/// A tool message whose call is not in the transcript (answers to calls are shown in the
/// call's card instead).
#[component]
fn ToolResultBody(message: Signal<Msg>) -> impl IntoView {
    let parts = Memo::new(move |_| match message.get() {
        Msg::Tool(t) => (t.tool_call_id, t.content.text(), t.error),
        _ => Default::default(),
    });
    view! {
        <div class="msg msg-tool" data-role="tool">
            <div class="msg-label">
                "Tool result "
                <code>{move || parts.with(|p| p.0.clone())}</code>
            </div>
            {move || parts.with(|p| p.2.clone()).map(|e| view! { <p class="tool-error">{e}</p> })}
            <pre class="code">
                {move || parts.with(|p| shown_json(&p.1))}
            </pre>
        </div>
    }
    .into_any()
}

/// Bytes encoded by base64 text.
fn base64_len(b64: &str) -> u64 {
    let t = b64.trim_end();
    let padding = t.bytes().rev().take_while(|&c| c == b'=').count().min(2) as u64;
    ((t.len() as u64) * 3 / 4).saturating_sub(padding)
}

/// Raster image types shown inline from `data:` sources (no SVG: it may carry script when
/// opened on its own).
const INLINE_IMAGE_TYPES: [&str; 5] = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/avif",
];

/// Tool result text, pretty-printed when it is JSON nesting at most 32 deep (deeper text is
/// shown as it is: parsing it would recurse once per level).
fn shown_json(text: &str) -> String {
    crate::ui::render_hints::json::nesting_within(text, 32)
        .then(|| pretty_json(text))
        .flatten()
        .unwrap_or_else(|| text.to_string())
}

/// A non-text content part: an inline thumbnail for a raster `data:` image, else a chip with
/// its kind, file name, type and size.
pub fn part_view(part: &ContentPart) -> AnyView {
    let (kind, media) = match part {
        ContentPart::Text(t) => {
            return view! { <span class="plain">{t.text.clone()}</span> }.into_any()
        }
        ContentPart::Image(m) => ("image", m),
        ContentPart::Audio(m) => ("audio", m),
        ContentPart::Video(m) => ("video", m),
        ContentPart::Document(m) => ("document", m),
    };
    let filename = media
        .metadata
        .as_ref()
        .and_then(|m| m.get("filename"))
        .and_then(|v| v.as_str())
        .map(str::to_string);
    let (where_, mime, size) = match &media.source {
        PartSource::Data { value, mime_type } => {
            ("inline", Some(mime_type.clone()), Some(base64_len(value)))
        }
        PartSource::Url { value, mime_type } => (value.as_str(), mime_type.clone(), None),
        PartSource::File {
            value, mime_type, ..
        } => (value.as_str(), mime_type.clone(), None),
    };
    let label = filename.unwrap_or_else(|| where_.to_string());
    let detail = [mime.clone(), size.map(human_bytes)]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
    let thumb = match &media.source {
        PartSource::Data { value, mime_type }
            if kind == "image" && INLINE_IMAGE_TYPES.contains(&mime_type.as_str()) =>
        {
            let src = format!("data:{mime_type};base64,{value}");
            Some(view! { <img class="part-thumb" src=src alt=label.clone()/> })
        }
        _ => None,
    };
    view! {
        <span class="part-chip" data-kind=kind>
            {thumb}
            <span class="part-kind">{kind}</span>
            <span class="part-name">{label.clone()}</span>
            <span class="part-detail">{detail}</span>
        </span>
    }
    .into_any()
}

//! The actions of a message, in a toolbar under it: "Copy message" (any message with text),
//! "Regenerate answer" (the last answer: the last run runs again and its answer is replaced,
//! on the server too), "Good answer" / "Bad answer" (assistant messages of threads this server
//! stores; `aria-pressed`, stored with the thread) and "Edit message" (user messages: the
//! conversation is cut there and the edited message sent). Real buttons, reachable by
//! keyboard; CSS shows them on hover and focus, always on touch screens.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::protocol::types::{Message as Msg, Role};
#[cfg(feature = "hydrate")]
use crate::ui::clipboard::copy_to_clipboard as copy_text;
use crate::ui::clipboard::CopyState;
use crate::ui::icons::icon;
use crate::ui::transcript::TranscriptCtx;
use crate::wire::{Feedback, Rating};

/// Ratings of the threads' messages (thread id → its feedback), shared by the transcript's
/// messages and seeded from the stored threads; `stored(thread id)` says whether this server
/// stores the thread (only then are ratings offered and sent).
#[derive(Clone, Copy)]
pub struct Ratings {
    pub by_thread: RwSignal<HashMap<String, Feedback>>,
    pub stored: Callback<String, bool>,
}

/// The toolbar of a message. `editing` (user messages) is the message's edit mode.
#[component]
pub fn MessageActions(
    /// The message.
    message: Signal<Msg>,
    /// Whether the message is being edited (user messages; the form replaces the bubble).
    #[prop(optional)]
    editing: Option<RwSignal<bool>>,
) -> impl IntoView {
    let Some(TranscriptCtx { agent }) = use_context::<TranscriptCtx>() else {
        return ().into_any();
    };
    let ratings = use_context::<Ratings>();
    let role = message.with_untracked(Msg::role);
    let id = Memo::new(move |_| message.with(|m| m.id().to_string()));
    // Whether there is anything to copy (the text itself is read when it is copied: a memo of
    // it copied a streaming answer's whole text on every frame).
    let has_text = Memo::new(move |_| message.with(has_copy_source));
    let copy_state = RwSignal::new(CopyState::Idle);
    let on_copy = move |_| {
        #[cfg(feature = "hydrate")]
        copy_text(&message.with_untracked(copy_source), copy_state);
    };
    let copy_label = move || match copy_state.get() {
        CopyState::Copied(_) => "Copied",
        CopyState::Failed(_) => "Copy failed",
        CopyState::Idle => "",
    };
    let running = agent.is_running;
    // The last answer: the last assistant message, with no user message after it.
    let is_last_answer = Memo::new(move |_| {
        let me = id.get();
        agent.messages.with(|all| {
            all.iter()
                .rev()
                .map(|e| (e.id.as_str(), e.msg.with_untracked(Msg::role)))
                .find(|(_, r)| matches!(r, Role::Assistant | Role::User))
                .is_some_and(|(last, r)| r == Role::Assistant && last == me)
        })
    });
    let thread = agent.thread_id;
    let rated = move || {
        let me = id.get();
        let t = thread.get();
        ratings.and_then(|r| {
            r.by_thread
                .with(|b| b.get(&t).and_then(|f| f.get(&me).copied()))
        })
    };
    let can_rate = move || ratings.is_some_and(|r| r.stored.run(thread.get()));
    let rate = move |rating: Rating| {
        let Some(r) = ratings else { return };
        let (t, me) = (thread.get_untracked(), id.get_untracked());
        let before = r
            .by_thread
            .with_untracked(|b| b.get(&t).and_then(|f| f.get(&me).copied()));
        let after = (before != Some(rating)).then_some(rating);
        set_rating(r, &t, &me, after);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            if !send_rating(&t, &me, after).await {
                set_rating(r, &t, &me, before);
            }
        });
    };
    let is_editing = move || editing.is_some_and(|e| e.get());
    view! {
        <div
            class="msg-actions"
            class:last-answer=move || is_last_answer.get()
            role="toolbar"
            aria-label="Message actions"
            hidden=is_editing
        >
            <Show when=move || has_text.get()>
                <button type="button" class="msg-action" aria-label="Copy message" title="Copy" on:click=on_copy>
                    {icon("copy")}
                </button>
            </Show>
            {(role == Role::User).then(|| view! {
                <Show when=move || !running.get() && editing.is_some()>
                    <button
                        type="button"
                        class="msg-action"
                        aria-label="Edit message"
                        title="Edit"
                        on:click=move |_| { if let Some(e) = editing { e.set(true) } }
                    >
                        {icon("edit")}
                    </button>
                </Show>
            })}
            {(role == Role::Assistant).then(|| view! {
                <Show when=move || is_last_answer.get() && !running.get()>
                    <button
                        type="button"
                        class="msg-action"
                        aria-label="Regenerate answer"
                        title="Regenerate"
                        on:click=move |_| agent.retry.run(())
                    >
                        {icon("regenerate")}
                    </button>
                </Show>
                <Show when=can_rate>
                    <button
                        type="button"
                        class="msg-action"
                        aria-label="Good answer"
                        title="Good answer"
                        aria-pressed=move || (rated() == Some(Rating::Up)).to_string()
                        on:click=move |_| rate(Rating::Up)
                    >
                        {icon("up")}
                    </button>
                    <button
                        type="button"
                        class="msg-action"
                        aria-label="Bad answer"
                        title="Bad answer"
                        aria-pressed=move || (rated() == Some(Rating::Down)).to_string()
                        on:click=move |_| rate(Rating::Down)
                    >
                        {icon("down")}
                    </button>
                </Show>
            })}
            <span class="msg-action-status" role="status">{copy_label}</span>
        </div>
    }
    .into_any()
}

/// The text "Copy message" copies: an answer's markdown source, a user message's text.
fn copy_source(m: &Msg) -> String {
    match m {
        Msg::Assistant(a) => a.content.clone().unwrap_or_default(),
        Msg::User(u) => u.content.text(),
        other => other.text().unwrap_or_default(),
    }
}

/// Whether [`copy_source`] has more than white space, without copying it.
fn has_copy_source(m: &Msg) -> bool {
    match m {
        Msg::Assistant(a) => a.content.as_deref().is_some_and(|t| !t.trim().is_empty()),
        _ => !copy_source(m).trim().is_empty(),
    }
}

fn set_rating(r: Ratings, thread: &str, message: &str, rating: Option<Rating>) {
    r.by_thread.update(|b| {
        let f = b.entry(thread.to_string()).or_default();
        match rating {
            Some(x) => {
                f.insert(message.to_string(), x);
            }
            None => {
                f.remove(message);
            }
        }
    });
}

/// `PUT /api/threads/{id}/feedback`; false when it was not stored.
#[cfg(feature = "hydrate")]
async fn send_rating(thread: &str, message: &str, rating: Option<Rating>) -> bool {
    use crate::wire::{thread_feedback_url, thread_url, SetFeedback};
    let body = serde_json::to_string(&SetFeedback {
        message_id: message.to_string(),
        rating,
    })
    .unwrap_or_default();
    let url = thread_feedback_url(&thread_url(thread));
    matches!(
        crate::client::transport::send_json("PUT", &url, Some(&body)).await,
        Ok((200, _))
    )
}

/// The form that replaces a user message being edited: Enter sends (Shift+Enter: a new line),
/// Escape cancels.
#[component]
pub fn EditMessage(
    /// The message being edited.
    message: Signal<Msg>,
    /// Set back to false when the edit ends.
    editing: RwSignal<bool>,
) -> impl IntoView {
    let Some(TranscriptCtx { agent }) = use_context::<TranscriptCtx>() else {
        return ().into_any();
    };
    let draft = RwSignal::new(message.with_untracked(copy_source));
    let input = NodeRef::<leptos::html::Textarea>::new();
    Effect::new(move |_| {
        if let Some(el) = input.get() {
            let _ = el.focus();
        }
    });
    let send = move || {
        let text = draft.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        editing.set(false);
        agent
            .edit
            .run((message.with_untracked(|m| m.id().to_string()), text));
    };
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
            ev.prevent_default();
            send();
        } else if ev.key() == "Escape" {
            ev.prevent_default();
            editing.set(false);
        }
    };
    view! {
        <form class="msg-edit" on:submit=move |ev| { ev.prevent_default(); send(); }>
            <textarea
                node_ref=input
                aria-label="Edit message"
                rows="3"
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
                on:keydown=on_keydown
            ></textarea>
            <div class="msg-edit-buttons">
                <button type="button" class="btn" on:click=move |_| editing.set(false)>"Cancel"</button>
                <button type="submit" class="btn primary" disabled=move || draft.with(|d| d.trim().is_empty())>
                    "Send edited message"
                </button>
            </div>
        </form>
    }
    .into_any()
}

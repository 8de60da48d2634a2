//! Edit and resend: the conversation is cut before a user message (on this page's own server
//! first, so the stored thread is what the user sees), and a run starts with the edited message
//! in its place.

use leptos::prelude::*;

use crate::client::errors::RunErrorView;
use crate::client::transport::{is_same_origin, send_json};
use crate::protocol::types::{Content, ContentPart, Message};
use crate::wire::{thread_truncate_url, thread_url, TruncateThread};

use super::live::Shared;
use super::run::{start_run, user_message};

/// Cut the conversation before message `id` and send `text` in its place (its non-text parts
/// kept). Nothing happens while a run is in progress or when the message is not there.
pub(super) fn edit_and_resend(l: &Shared, id: String, text: String) {
    let (url, w) = {
        let b = l.borrow();
        if b.pipeline.is_some() || !b.conversation.messages.iter().any(|m| m.id() == id) {
            return;
        }
        (b.options.url.get_untracked(), b.w)
    };
    let thread = w.thread_id.get_untracked();
    let l = l.clone();
    leptos::task::spawn_local(async move {
        if is_same_origin(&url) {
            let body = serde_json::to_string(&TruncateThread {
                from_message_id: id.clone(),
            })
            .unwrap_or_default();
            let target = thread_truncate_url(&thread_url(&thread));
            let failed = match send_json("POST", &target, Some(&body)).await {
                Ok((200, _)) => None,
                // Not stored (yet): nothing to cut on the server.
                Ok((404, _)) => None,
                Ok((status, body)) => Some(format!("HTTP {status}: {body}")),
                Err(e) => Some(e.to_string()),
            };
            if let Some(message) = failed {
                w.error.set(Some(RunErrorView {
                    message: format!("The message could not be edited: {message}"),
                    code: None,
                }));
                return;
            }
        }
        if l.borrow().pipeline.is_some() {
            return;
        }
        let mut conv = std::mem::take(&mut l.borrow_mut().conversation);
        let Some(at) = conv.messages.iter().position(|m| m.id() == id) else {
            l.borrow_mut().conversation = conv;
            return;
        };
        let attachments = match &conv.messages[at] {
            Message::User(u) => match &u.content {
                Content::Parts(parts) => parts
                    .iter()
                    .filter(|p| !matches!(p, ContentPart::Text(_)))
                    .cloned()
                    .collect(),
                Content::Text(_) => Vec::new(),
            },
            _ => Vec::new(),
        };
        conv.messages.truncate(at);
        // A hint shown after the kept messages stays; those after the cut go with it.
        conv.render_hints.retain(|h| h.position <= at);
        conv.messages.push(user_message(text, attachments));
        conv.reindex();
        start_run(&l, conv, thread, None, None);
    });
}

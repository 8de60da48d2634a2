//! Threads as this server knows them: what is stored, with the live conversation of threads
//! that have a run in progress or ran since the server started. Used by the HTTP endpoints and by
//! server-side rendering.

use crate::wire::{ThreadList, ThreadView};

use super::accounts::User;
use super::error::ApiError;
use super::state::AppState;

/// How many threads a list shows at most (the most recently updated).
pub const THREAD_LIST_LIMIT: usize = 500;

/// The [`THREAD_LIST_LIMIT`] most recently updated threads of `user`, newest first (with
/// `search`, those whose title contains it).
pub async fn thread_list(
    state: &AppState,
    user: &User,
    search: Option<&str>,
) -> Result<ThreadList, ApiError> {
    let Some(store) = state.runs.store() else {
        return Ok(ThreadList { threads: vec![] });
    };
    store.flush().await;
    let threads = store
        .threads(user.name(), search, THREAD_LIST_LIMIT)
        .await?;
    Ok(ThreadList { threads })
}

/// One thread of `user`: its messages and state as they are now (live runs included) and its
/// runs. None for another user's thread, as for a thread that does not exist.
pub async fn thread_view(
    state: &AppState,
    id: &str,
    user: &User,
) -> Result<Option<ThreadView>, ApiError> {
    if !state.runs.owns_thread(user, id).await {
        return Ok(None);
    }
    let live = state.runs.thread(Some(id)).map(|(_, c)| c);
    let stored = match state.runs.store() {
        Some(store) => {
            store.flush().await;
            store.thread(id).await?
        }
        None => None,
    };
    let mut view = match (stored, live) {
        (Some(mut view), Some(conv)) => {
            view.messages = conv.messages;
            view.state = conv.state;
            view.render_hints = conv.render_hints;
            Some(view)
        }
        (Some(view), None) => Some(view),
        (None, Some(conv)) => Some(ThreadView {
            id: id.to_string(),
            title: super::store::title_of(&conv.messages),
            agent_id: None,
            created_at: 0,
            updated_at: 0,
            messages: conv.messages,
            state: conv.state,
            runs: vec![],
            render_hints: conv.render_hints,
            feedback: Default::default(),
        }),
        (None, None) => None,
    };
    // Ratings of messages that left the thread (a regenerated answer) are not shown.
    if let Some(v) = view.as_mut() {
        let ids: std::collections::HashSet<&str> = v.messages.iter().map(|m| m.id()).collect();
        v.feedback.retain(|id, _| ids.contains(id.as_str()));
    }
    Ok(view)
}

//! What a user changes in their threads besides running them: rename, delete, rate a message,
//! cut the thread before a message (edit and resend). Each checks ownership first (another
//! user's thread is 404, as one that does not exist), and deleting or cutting holds the thread
//! (409 while a run of it is in progress; runs of it wait for nothing and are refused with 409
//! meanwhile), so a run never writes into a thread that is going or changing under it.

use crate::server::clock::now_ms;
use crate::wire::{clean_title, Feedback, RenameThread, SetFeedback, ThreadView, TruncateThread};

use super::accounts::User;
use super::error::ApiError;
use super::state::AppState;
use super::store::Store;
use super::thread_views::thread_view;

fn not_found(id: &str) -> ApiError {
    ApiError::NotFound(format!("no thread '{id}'"))
}

/// The store, and the thread checked to be `user`'s.
async fn owned<'a>(state: &'a AppState, id: &str, user: &User) -> Result<&'a Store, ApiError> {
    if !state.runs.owns_thread(user, id).await {
        return Err(not_found(id));
    }
    state.runs.store().ok_or_else(|| not_found(id))
}

/// Rename a thread; an empty title gives the automatic one back. Returns the thread's title now.
pub async fn rename(
    state: &AppState,
    id: &str,
    user: &User,
    req: RenameThread,
) -> Result<String, ApiError> {
    let title = clean_title(&req.title).map_err(ApiError::TooLarge)?;
    let store = owned(state, id, user).await?;
    if !store.rename_thread(id, title.as_deref()).await? {
        return Err(not_found(id));
    }
    let view = store.thread(id).await?.ok_or_else(|| not_found(id))?;
    Ok(view.title)
}

/// Delete a thread with its runs, their events and its ratings (409 while a run of it is in
/// progress).
pub async fn delete(state: &AppState, id: &str, user: &User) -> Result<(), ApiError> {
    if !state.runs.owns_thread(user, id).await {
        return Err(not_found(id));
    }
    let _hold = state.runs.hold_thread(id)?;
    if let Some(store) = state.runs.store() {
        store.delete_thread(id).await?;
    }
    state.runs.forget_thread(id);
    Ok(())
}

/// Rate a message of the thread (None: take the rating back). Returns the thread's ratings.
pub async fn set_feedback(
    state: &AppState,
    id: &str,
    user: &User,
    req: SetFeedback,
) -> Result<Feedback, ApiError> {
    state
        .runs
        .limits()
        .check_item_id("messageId", &req.message_id)?;
    let store = owned(state, id, user).await?;
    let view = thread_view(state, id, user)
        .await?
        .ok_or_else(|| not_found(id))?;
    if !view.messages.iter().any(|m| m.id() == req.message_id) {
        return Err(ApiError::NotFound(format!(
            "thread '{id}' has no message '{}'",
            req.message_id
        )));
    }
    store
        .set_feedback(id, &req.message_id, req.rating, now_ms())
        .await?;
    let mut feedback = store.feedback(id).await?;
    feedback.retain(|m, _| view.messages.iter().any(|x| x.id() == m));
    Ok(feedback)
}

/// Cut the thread before a message: it and every message after it leave the thread, with the
/// render hints shown after them (409 while a run of it is in progress). Returns the thread.
pub async fn truncate(
    state: &AppState,
    id: &str,
    user: &User,
    req: TruncateThread,
) -> Result<ThreadView, ApiError> {
    state
        .runs
        .limits()
        .check_item_id("fromMessageId", &req.from_message_id)?;
    let store = owned(state, id, user).await?;
    let _hold = state.runs.hold_thread(id)?;
    let mut view = thread_view(state, id, user)
        .await?
        .ok_or_else(|| not_found(id))?;
    let Some(at) = view
        .messages
        .iter()
        .position(|m| m.id() == req.from_message_id)
    else {
        return Err(ApiError::NotFound(format!(
            "thread '{id}' has no message '{}'",
            req.from_message_id
        )));
    };
    view.messages.truncate(at);
    // A hint placed after `at` messages was shown before the cut message: it stays.
    view.render_hints.retain(|h| h.position <= at);
    store
        .replace_messages(id, &view.messages, &view.render_hints, now_ms())
        .await?;
    // The conversation in memory is stale now: the next run reads the thread back.
    state.runs.forget_thread(id);
    let ids: std::collections::HashSet<&str> = view.messages.iter().map(|m| m.id()).collect();
    view.feedback.retain(|m, _| ids.contains(m.as_str()));
    Ok(view)
}

//! HTTP routes, one router per module, merged in [`api_router`].

pub mod agents;
pub mod body;
pub mod copilotkit;
pub mod history;
pub mod named_events;
pub mod observer;
pub mod sandbox;

use axum::Router;

use super::state::AppState;

/// Every API route (AG-UI run endpoint, agents list, CopilotKit runtime routes, seed
/// endpoints). Authentication is a
/// layer of the whole app ([`crate::server::auth::authenticate`]): handlers take the
/// [`crate::server::accounts::User`] it puts in the request.
pub fn api_router(_state: &AppState) -> Router<AppState> {
    Router::new()
        .merge(agents::router())
        .merge(copilotkit::router())
        .merge(named_events::router())
        .merge(observer::router())
        .merge(history::router())
        .merge(sandbox::router())
}

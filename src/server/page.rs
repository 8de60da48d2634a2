//! The page's data, loaded for the request being rendered: the hosted agents and the threads
//! of the user the request is from. Handed to the UI as a [`PageData`] by context, so the UI
//! never names a server type.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use leptos::prelude::use_context;

use super::accounts::User;
use super::state::AppState;
use super::thread_views::{thread_list, thread_view};
use crate::wire::{AgentSummary, InitialThreads, PageData, PageLoader};

struct Loader(AppState);

impl PageLoader for Loader {
    fn agents(&self) -> Vec<AgentSummary> {
        self.0.agents.summaries()
    }

    fn threads(
        &self,
        requested: Option<String>,
    ) -> Pin<Box<dyn Future<Output = InitialThreads> + Send>> {
        // Set by the authentication layer; without it (no request), nothing is shown.
        let user = use_context::<axum::http::request::Parts>()
            .and_then(|p| p.extensions.get::<User>().cloned());
        let state = self.0.clone();
        Box::pin(async move {
            let Some(user) = user else {
                return InitialThreads {
                    requested,
                    ..Default::default()
                };
            };
            let list = thread_list(&state, &user, None)
                .await
                .map(|l| l.threads)
                .unwrap_or_default();
            let current = match &requested {
                Some(id) => thread_view(&state, id, &user)
                    .await
                    .ok()
                    .flatten()
                    .map(crate::wire::StoredThread::Parsed),
                None => None,
            };
            InitialThreads {
                list,
                requested,
                current,
                signed_in: state.auth.enabled(),
                now_ms: crate::server::clock::now_ms(),
            }
        })
    }
}

/// The context a page is rendered with.
pub fn page_data(state: &AppState) -> PageData {
    PageData(Arc::new(Loader(state.clone())))
}

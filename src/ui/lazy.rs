//! Views whose code the browser loads the first time it is needed (a split function declared
//! with [`split_view!`]: a chunk of its own in a `cargo leptos build --split`). A chunk that
//! cannot be fetched leaves a note in the view's place and the page goes on (a `#[lazy]`
//! function would panic there and stop the page); the next view of the kind tries again. One
//! that arrives live renders once its chunk is there. The server renders it at once, after an
//! inert `<template data-lazy=NAME>`: before hydrating, the browser loads the chunk of every
//! such marker in the page (each view's `preload_rendered`, called from `hydrate`, all at once),
//! so the view is ready when hydration reaches it (Leptos 0.8 hydrates a `Suspend`
//! synchronously: one still loading would not match the server's HTML).

use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;

use crate::client::chunk::{unfetched, RELOAD_TO_SEE};

/// Declares `fn NAME(ARGS) BODY` (a view) as a split function of the chunk `MODULE` whose
/// preload function is `PRELOAD`: calling it gives a future of `Ok(view)`, or `Err` when the
/// chunk could not be fetched.
macro_rules! split_view {
    ($module:ident, $preload:ident, fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $crate::client::chunk::split_fn!($module, $preload, fn $name($($arg: $ty),*) -> AnyView $body);
    };
}
pub(crate) use split_view;

/// `view`, the future of a [`split_view!`] function, behind the marker named `name`; `what`
/// names it in the note left when its chunk cannot be fetched.
pub fn on_demand(
    name: &'static str,
    what: &'static str,
    view: impl std::future::Future<Output = Result<AnyView, SplitLoaderError>> + Send + 'static,
) -> AnyView {
    view! { <template data-lazy=name></template> {Suspend::new(or_note(what, view))} }.into_any()
}

/// A panel's view from its chunk (a panel that starts closed: the server never renders it),
/// under a suspense of its own, or a note when its chunk could not be fetched.
pub fn panel(
    what: &'static str,
    view: impl std::future::Future<Output = Result<AnyView, SplitLoaderError>> + Send + 'static,
) -> impl IntoView {
    let view = or_note(what, view);
    view! { <Suspense fallback=|| ()>{Suspend::new(view)}</Suspense> }
}

/// The view, or a note in its place when its chunk could not be fetched.
pub async fn or_note(
    what: &'static str,
    view: impl std::future::Future<Output = Result<AnyView, SplitLoaderError>>,
) -> AnyView {
    match view.await {
        Ok(view) => view,
        Err(_) => view! {
            <p class="chunk-unavailable" role="note">
                {unfetched(&format!("{what} cannot be shown"), RELOAD_TO_SEE)}
            </p>
        }
        .into_any(),
    }
}

/// Whether the server rendered a view marked `name` into this page.
#[cfg(feature = "hydrate")]
fn rendered(name: &str) -> bool {
    document()
        .query_selector(&format!("template[data-lazy=\"{name}\"]"))
        .ok()
        .flatten()
        .is_some()
}

/// Loads a chunk (`preload`, a split view's preload function) if the server rendered a
/// view marked `name` into this page.
#[cfg(feature = "hydrate")]
pub async fn load_if_rendered<F: std::future::Future<Output = Result<(), SplitLoaderError>>>(
    name: &str,
    preload: impl FnOnce() -> F,
) {
    if rendered(name) {
        // A chunk that cannot be fetched is tried again by its view, which shows a note.
        let _ = preload().await;
    }
}

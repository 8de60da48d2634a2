//! Views whose code the browser loads the first time it is needed (`#[lazy]`: a chunk of its
//! own in a `cargo leptos build --split`, an ordinary call without). One that arrives live
//! renders once its chunk is there. The server renders it at once, after an inert
//! `<template data-lazy=NAME>`: before hydrating, the browser loads the chunk of every such
//! marker in the page (each view's `preload_rendered`, called from `hydrate`, all at once), so
//! the view is ready when hydration reaches it (Leptos 0.8 hydrates a `Suspend` synchronously: one still
//! loading would not match the server's HTML).

use leptos::prelude::*;

/// `view`, the future of a `#[lazy]` function, behind the marker named `name`.
pub fn on_demand(
    name: &'static str,
    view: impl std::future::Future<Output = AnyView> + Send + 'static,
) -> AnyView {
    view! { <template data-lazy=name></template> {Suspend::new(view)} }.into_any()
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

/// Loads a chunk (`preload`, a `#[lazy]` function's `__preload_…`) if the server rendered a
/// view marked `name` into this page.
#[cfg(feature = "hydrate")]
pub async fn load_if_rendered<F: std::future::Future<Output = ()>>(
    name: &str,
    preload: impl FnOnce() -> F,
) {
    if rendered(name) {
        preload().await;
    }
}

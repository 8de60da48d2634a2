//! The Leptos UI, rendered on the server and hydrated in the browser.

pub mod app;
pub mod markdown;
pub mod render_hints;

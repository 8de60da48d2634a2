//! The Leptos UI, rendered on the server and hydrated in the browser: the studio page and one
//! component per file.

pub mod a2ui;
pub mod activity;
pub mod agent_caps;
pub mod agent_picker;
pub mod app;
pub mod approval;
pub mod chat;
pub mod clipboard;
pub mod codec;
pub mod composer;
pub mod dock;
pub mod frame;
pub mod icons;
pub mod inspector;
pub mod lazy;
pub mod markdown;
pub mod message;
pub mod message_actions;
pub mod reasoning;
pub mod render_hints;
pub mod run_status;
pub mod schema_form;
pub mod state_panel;
pub mod suggestions;
pub mod theme;
pub mod thread_edit;
pub mod thread_item;
pub mod thread_list;
pub mod thread_store;
pub mod tool_call;
pub mod tool_renderers;
pub mod transcript;
pub mod util;
pub mod warm;

// Rendering views to HTML needs the `ssr` feature.
#[cfg(all(test, feature = "ssr"))]
mod tests;

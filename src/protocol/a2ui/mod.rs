//! A2UI v0.9 (agent-to-UI surfaces, carried by AG-UI `a2ui-surface` activities): parsing of the
//! server-to-client messages, the surfaces they build, validation against the basic catalog (or
//! a catalog given as JSON Schema), JSON Pointer access to a surface's data model and the
//! `userAction` a Button sends back. Pure Rust, no I/O; shared by the renderer, `inspect` and
//! the conformance runner.
//!
//! Every message is untrusted input: each resource a message can claim (surfaces, components,
//! data-model bytes and nodes, nesting, string lengths) has a bound in [`A2uiLimits`], every walk
//! over a value is iterative or depth-bounded, and no input makes this module panic.
//!
//! Two modes (see [`ProcessorOptions::strict`]):
//! - strict (the validator): a message that breaks the catalog or the component graph (missing
//!   root, dangling reference, cycle, orphan, nesting) is rejected whole and changes nothing;
//! - lenient (the renderer, the default): the envelope is still checked, but a component the
//!   catalog rejects or a graph that is not finished yet is kept, and [`Surface::issues`] says
//!   what is wrong so the renderer can show it in place while the rest of the surface renders.

pub mod action;
mod basic;
pub mod binding;
pub mod catalog;
mod check;
pub mod error;
pub mod functions;
pub mod limits;
pub mod message;
pub mod pattern;
pub mod pointer;
pub mod processor;
mod schema;
pub mod summary;
pub mod surface;
pub mod topology;

pub use action::{user_action, user_action_of};
pub use catalog::{basic_enum, Catalog, BASIC_CATALOG_IDS};
pub use error::{A2uiError, Category, Detail, DetailCode};
pub use limits::A2uiLimits;
pub use message::{parse_message, A2uiMessage, SUPPORTED_VERSIONS};
pub use processor::{Change, Processor, ProcessorOptions};
pub use surface::{write_data, Component, Surface, SurfaceIssue};

use serde_json::{Map, Value};

/// The AG-UI `activityType` of an A2UI surface.
pub const ACTIVITY_TYPE: &str = "a2ui-surface";
/// The key of the activity content that holds the A2UI messages.
pub const OPERATIONS_KEY: &str = "a2ui_operations";
/// The prefix of the activity's message id (`a2ui-surface-<id>`).
pub const MESSAGE_ID_PREFIX: &str = "a2ui-surface-";

/// What an `a2ui-surface` activity's content says.
#[derive(Debug, Clone, PartialEq)]
pub enum SurfaceContent<'a> {
    /// A2UI messages to apply, in order.
    Operations(&'a [Value]),
    /// The surface is not there yet: `building`, `retrying` or `failed` (with what the
    /// producer said about it: `attempt`, `maxAttempts`, `error`, `errors`, `progressTokens`).
    Status {
        status: &'a str,
        detail: &'a Map<String, Value>,
    },
    /// Neither: a content this version does not know.
    Unknown,
}

/// Reads an activity content: operations win over a status (a producer that sent both has
/// the surface already).
pub fn surface_content(content: &Map<String, Value>) -> SurfaceContent<'_> {
    if let Some(Value::Array(ops)) = content.get(OPERATIONS_KEY) {
        return SurfaceContent::Operations(ops);
    }
    match content.get("status") {
        Some(Value::String(s)) => SurfaceContent::Status {
            status: s,
            detail: content,
        },
        _ => SurfaceContent::Unknown,
    }
}

#[cfg(test)]
mod tests;

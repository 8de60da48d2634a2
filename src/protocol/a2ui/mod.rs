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
pub mod component;
pub mod content;
pub mod error;
pub mod functions;
pub mod limits;
pub mod message;
pub mod pattern;
pub mod pointer;
pub mod processor;
pub mod refs;
mod schema;
pub mod scope;
pub mod summary;
pub mod surface;
pub mod topology;

pub use action::{user_action, user_action_of};
pub use catalog::{basic_enum, Catalog, BASIC_CATALOG_IDS};
pub use component::Component;
pub use content::{
    surface_content, SurfaceContent, ACTIVITY_TYPE, MESSAGE_ID_PREFIX, OPERATIONS_KEY,
};
pub use error::{A2uiError, Category, Detail, DetailCode};
pub use limits::A2uiLimits;
pub use message::{parse_message, A2uiMessage, SUPPORTED_VERSIONS};
pub use processor::{Change, Processor, ProcessorOptions};
pub use surface::{write_data, Surface, SurfaceIssue};

#[cfg(test)]
mod tests;

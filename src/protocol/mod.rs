//! The AG-UI 1.1 protocol core: types, SSE codec, dialect translation, enforcement, chunk
//! expansion, verification and the reducer. Pure Rust, no I/O; the same code runs on the server
//! and in the browser.

pub mod a2ui;
mod bytes;
pub mod capabilities;
pub mod chunks;
pub mod compat;
pub mod dialect;
pub mod enforce;
pub mod error;
pub mod event;
pub mod genui;
pub mod inspect;
pub mod interrupts;
pub mod limits;
pub mod pipeline;
pub mod proto;
pub mod reduce;
pub mod sse;
pub mod types;
pub mod verify;

pub use event::{Event, EventKind};
pub use types::*;

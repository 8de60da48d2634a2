//! The browser side of an AG-UI run: the `use_agent` hook, the session types it shares with the
//! UI, the browser half that drives runs, and the transport (a streamed `fetch` POST).
//!
//! Floors, top down: `use_agent` → `browser` (hydrate only) → `transport` → `session` (types
//! and pure logic, no browser API).

pub mod answers;
pub mod body_format;
#[cfg(feature = "hydrate")]
mod browser;
pub mod chunk;
pub mod copilotkit;
pub mod errors;
pub mod event_log;
pub mod history;
#[cfg(feature = "hydrate")]
pub mod replay;
pub mod run_report;
pub mod session;
pub mod side_run;
#[cfg(feature = "hydrate")]
pub mod transport;
mod use_agent;

#[cfg(feature = "hydrate")]
pub use browser::{load_engine, load_with_engine};
pub use session::{UseAgentOptions, UseAgentReturn};
pub use use_agent::use_agent;

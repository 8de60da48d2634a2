//! The browser side of an AG-UI run: the transport (a streamed `fetch` POST) and the
//! `use_agent` hook that feeds it through the shared protocol pipeline into signals.

pub mod session;
#[cfg(feature = "hydrate")]
mod session_live;
#[cfg(feature = "hydrate")]
pub mod transport;

pub use session::{use_agent, UseAgentOptions, UseAgentReturn};

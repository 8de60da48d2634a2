//! Bounds on what an upstream (a proxied foreign agent, a model server) may send into one run,
//! shared by the proxy and the LLM agent so both end the run the same way past them.
//!
//! Lines and single JSON values are already bounded by the SSE decoder; without a total, a
//! peer that streams forever fills the run's event log (memory, then disk) at the speed of the
//! network. The meter counts raw body bytes (before decoding, so padding and comments count)
//! and events (or chunks), and the first count past its limit is a `RUN_ERROR` with code
//! [`RunErrorCode::UpstreamLimit`].

use crate::server::runs::context::{AgentError, RunErrorCode};

pub use crate::server::runs::context::UpstreamLimits;

/// What one upstream has sent so far, against its limits.
#[derive(Debug, Clone)]
pub struct UpstreamMeter {
    limits: UpstreamLimits,
    bytes: u64,
    events: u64,
    /// Names the upstream in the error message ("the foreign agent at host:port").
    who: String,
}

impl UpstreamMeter {
    pub fn new(limits: UpstreamLimits, who: impl Into<String>) -> Self {
        UpstreamMeter {
            limits,
            bytes: 0,
            events: 0,
            who: who.into(),
        }
    }

    /// Count `n` more body bytes; past the limit, the error to end the run with. Called before
    /// the bytes are decoded, so nothing past the limit is ever parsed or stored.
    pub fn bytes(&mut self, n: usize) -> Result<(), AgentError> {
        self.bytes = self.bytes.saturating_add(n as u64);
        if self.bytes > self.limits.max_bytes {
            return Err(AgentError::failed(
                RunErrorCode::UpstreamLimit,
                format!(
                    "{} sent more than {} bytes (--max-upstream-bytes); the rest was not read",
                    self.who, self.limits.max_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Count `n` more bytes that came from another peer of the same run (an MCP server's
    /// answer to a tool call): one budget for all a run takes in, the error naming `who`.
    pub fn bytes_from(&mut self, n: usize, who: &str) -> Result<(), AgentError> {
        self.bytes = self.bytes.saturating_add(n as u64);
        if self.bytes > self.limits.max_bytes {
            return Err(AgentError::failed(
                RunErrorCode::UpstreamLimit,
                format!(
                    "{who} answered with {n} bytes; the run's upstreams sent more than {} bytes in all (--max-upstream-bytes)",
                    self.limits.max_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Count `n` more events (or chunks); past the limit, the error to end the run with.
    pub fn events(&mut self, n: usize) -> Result<(), AgentError> {
        self.events = self.events.saturating_add(n as u64);
        if self.events > self.limits.max_events {
            return Err(AgentError::failed(
                RunErrorCode::UpstreamLimit,
                format!(
                    "{} sent more than {} events (--max-upstream-events); the rest was not read",
                    self.who, self.limits.max_events
                ),
            ));
        }
        Ok(())
    }

    /// The error for one line, frame or value past the decoder's own size limit.
    pub fn too_large(&self, what: impl std::fmt::Display) -> AgentError {
        AgentError::failed(
            RunErrorCode::UpstreamLimit,
            format!("{} sent too much at once: {what}", self.who),
        )
    }

    /// The bytes the upstream may still send.
    pub fn bytes_left(&self) -> u64 {
        self.limits.max_bytes.saturating_sub(self.bytes)
    }
}

#[cfg(test)]
mod tests;

//! [`RunErrorCode`]: the stable `code` strings of the `RUN_ERROR`s this server sends.

use serde::{Deserialize, Serialize};

/// The `code` of every `RUN_ERROR` this server ends a run with, serialised as the stable wire
/// strings documented in the README and `docs/` (clients match on them). A foreign agent's own
/// code, relayed by the proxy, is kept as it came ([`RunErrorCode::Foreign`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunErrorCode {
    /// The agent broke the AG-UI protocol (its bug becomes a clean `RUN_ERROR`).
    AgentProtocolError,
    /// The agent panicked, or the server has no implementation for what was asked.
    InternalError,
    /// The database could not store the run's events.
    StorageFailed,
    /// The run reached `--max-run-events`.
    EventLimit,
    /// A state snapshot or patch would pass `--max-state-bytes` / `--max-json-depth`.
    StateLimit,
    /// An upstream sent more than `--max-upstream-bytes` / `--max-upstream-events`.
    UpstreamLimit,
    /// The input holds something this agent must not pass on (e.g. a media URL scheme).
    InvalidInput,
    /// No answer to an in-stream approval within `--approval-timeout`.
    ApprovalTimeout,
    /// The run's `resume` answers an interrupt whose `expiresAt` has passed.
    InterruptExpired,
    /// The server stopped while the run was in progress.
    ServerRestarted,
    /// The demo's pretend upstream service failed (the `error` scenario).
    UpstreamUnavailable,
    LlmUnauthorized,
    LlmNotFound,
    LlmRateLimited,
    LlmBadRequest,
    LlmHttpError,
    LlmUnreachable,
    LlmTimeout,
    LlmStreamTruncated,
    LlmStreamError,
    LlmBadResponse,
    LlmTooManyRounds,
    ForeignUnreachable,
    ForeignHttpError,
    ForeignNotSse,
    ForeignProtocolError,
    ForeignStreamTruncated,
    ForeignTimeout,
    /// A foreign agent's `RUN_ERROR` without a code of its own.
    ForeignRunError,
    /// A foreign agent's own code, relayed unchanged.
    Foreign(String),
}

impl RunErrorCode {
    /// Every code of ours, for tables and tests.
    pub const ALL: &'static [RunErrorCode] = &[
        RunErrorCode::AgentProtocolError,
        RunErrorCode::InternalError,
        RunErrorCode::StorageFailed,
        RunErrorCode::EventLimit,
        RunErrorCode::StateLimit,
        RunErrorCode::UpstreamLimit,
        RunErrorCode::InvalidInput,
        RunErrorCode::ApprovalTimeout,
        RunErrorCode::InterruptExpired,
        RunErrorCode::ServerRestarted,
        RunErrorCode::UpstreamUnavailable,
        RunErrorCode::LlmUnauthorized,
        RunErrorCode::LlmNotFound,
        RunErrorCode::LlmRateLimited,
        RunErrorCode::LlmBadRequest,
        RunErrorCode::LlmHttpError,
        RunErrorCode::LlmUnreachable,
        RunErrorCode::LlmTimeout,
        RunErrorCode::LlmStreamTruncated,
        RunErrorCode::LlmStreamError,
        RunErrorCode::LlmBadResponse,
        RunErrorCode::LlmTooManyRounds,
        RunErrorCode::ForeignUnreachable,
        RunErrorCode::ForeignHttpError,
        RunErrorCode::ForeignNotSse,
        RunErrorCode::ForeignProtocolError,
        RunErrorCode::ForeignStreamTruncated,
        RunErrorCode::ForeignTimeout,
        RunErrorCode::ForeignRunError,
    ];

    /// The wire string.
    pub fn as_str(&self) -> &str {
        use RunErrorCode as C;
        match self {
            C::AgentProtocolError => "AGENT_PROTOCOL_ERROR",
            C::InternalError => "INTERNAL_ERROR",
            C::StorageFailed => "STORAGE_FAILED",
            C::EventLimit => "EVENT_LIMIT",
            C::StateLimit => crate::protocol::reduce::STATE_LIMIT,
            C::UpstreamLimit => "UPSTREAM_LIMIT",
            C::InvalidInput => "INVALID_INPUT",
            C::ApprovalTimeout => "APPROVAL_TIMEOUT",
            C::InterruptExpired => "INTERRUPT_EXPIRED",
            C::ServerRestarted => "SERVER_RESTARTED",
            C::UpstreamUnavailable => "UPSTREAM_UNAVAILABLE",
            C::LlmUnauthorized => "LLM_UNAUTHORIZED",
            C::LlmNotFound => "LLM_NOT_FOUND",
            C::LlmRateLimited => "LLM_RATE_LIMITED",
            C::LlmBadRequest => "LLM_BAD_REQUEST",
            C::LlmHttpError => "LLM_HTTP_ERROR",
            C::LlmUnreachable => "LLM_UNREACHABLE",
            C::LlmTimeout => "LLM_TIMEOUT",
            C::LlmStreamTruncated => "LLM_STREAM_TRUNCATED",
            C::LlmStreamError => "LLM_STREAM_ERROR",
            C::LlmBadResponse => "LLM_BAD_RESPONSE",
            C::LlmTooManyRounds => "LLM_TOO_MANY_ROUNDS",
            C::ForeignUnreachable => "FOREIGN_UNREACHABLE",
            C::ForeignHttpError => "FOREIGN_HTTP_ERROR",
            C::ForeignNotSse => "FOREIGN_NOT_SSE",
            C::ForeignProtocolError => "FOREIGN_PROTOCOL_ERROR",
            C::ForeignStreamTruncated => "FOREIGN_STREAM_TRUNCATED",
            C::ForeignTimeout => "FOREIGN_TIMEOUT",
            C::ForeignRunError => "FOREIGN_RUN_ERROR",
            C::Foreign(code) => code,
        }
    }

    /// A code as read from the wire: ours when it is one, else a foreign one.
    pub fn from_wire(code: &str) -> Self {
        Self::ALL
            .iter()
            .find(|c| c.as_str() == code)
            .cloned()
            .unwrap_or_else(|| RunErrorCode::Foreign(code.to_string()))
    }
}

impl std::fmt::Display for RunErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RunErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RunErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Self::from_wire(&String::deserialize(d)?))
    }
}

#[cfg(test)]
mod run_error_code_tests {
    use super::RunErrorCode;

    #[test]
    fn every_code_reads_back_as_itself_and_strings_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in RunErrorCode::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {c}");
            // The wire form is SCREAMING_SNAKE_CASE, like every AG-UI code.
            assert!(
                c.as_str()
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b == b'_'),
                "{c} is sent as {:?}",
                c.as_str()
            );
            assert_eq!(&RunErrorCode::from_wire(c.as_str()), c);
            let json = serde_json::to_string(c).unwrap();
            assert_eq!(serde_json::from_str::<RunErrorCode>(&json).unwrap(), *c);
        }
        assert_eq!(
            RunErrorCode::from_wire("THEIR_OWN"),
            RunErrorCode::Foreign("THEIR_OWN".into())
        );
    }
}

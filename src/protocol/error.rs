//! The protocol core's errors: what makes a stream or a recording unusable. Their text is what
//! a `RUN_ERROR` (or the `inspect` report) tells the user.

/// A fatal problem with a stream or a recording.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The wire form is not an event: not an object, no type, a malformed field.
    #[error("{0}")]
    Malformed(String),
    /// The events break an ordering or lifecycle rule of the protocol (the verifier).
    #[error("{0}")]
    Violation(String),
    /// A recording that is neither JSON Lines, SSE nor a conformance fixture.
    #[error("{0}")]
    Recording(String),
}

//! What the parts of a transcript share: the session it shows, provided as context by the
//! transcript ([`crate::ui::chat::Chat`]) and read by the cards inside it (tool calls read their
//! status and results from it). A file of its own so the cards need not import the transcript
//! that contains them.

use crate::client::session::UseAgentReturn;

/// The context of a transcript.
#[derive(Clone, Copy)]
pub struct TranscriptCtx {
    pub agent: UseAgentReturn,
}

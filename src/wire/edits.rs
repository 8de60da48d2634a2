//! The JSON shapes of the thread edits (rename, feedback, cutting a thread for "edit and
//! resend") and search, with their bounds — shared by the server that checks them and the
//! browser that sends them. Imports nothing from the rest of `wire`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Longest title a thread may be given, in characters (after trimming).
pub const MAX_TITLE_CHARS: usize = 200;
/// Longest search text `GET /api/threads?q=` accepts, in characters.
pub const MAX_QUERY_CHARS: usize = 200;

/// A thumbs up or down on a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    Up,
    Down,
}

impl Rating {
    pub fn as_str(self) -> &'static str {
        match self {
            Rating::Up => "up",
            Rating::Down => "down",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "up" => Some(Rating::Up),
            "down" => Some(Rating::Down),
            _ => None,
        }
    }
}

/// Message id → its rating, for the messages of a thread that have one.
pub type Feedback = BTreeMap<String, Rating>;

/// `PATCH /api/threads/{id}`: a new title (trimmed; empty gives the automatic title back).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenameThread {
    pub title: String,
}

/// `PUT /api/threads/{id}/feedback`: rate a message of the thread (`null` takes the rating
/// back).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetFeedback {
    pub message_id: String,
    pub rating: Option<Rating>,
}

/// `POST /api/threads/{id}/truncate`: the message and every message after it leave the thread
/// (before a user message is edited and sent again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TruncateThread {
    pub from_message_id: String,
}

/// A title as the server stores it: trimmed, on one line; None when empty (the automatic
/// title then shows); an error past [`MAX_TITLE_CHARS`].
pub fn clean_title(title: &str) -> Result<Option<String>, String> {
    let one_line = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > MAX_TITLE_CHARS {
        return Err(format!("a title has at most {MAX_TITLE_CHARS} characters"));
    }
    Ok((!one_line.is_empty()).then_some(one_line))
}

/// The URL of a thread's feedback.
pub fn thread_feedback_url(thread_url: &str) -> String {
    format!("{thread_url}/feedback")
}

/// The URL that cuts a thread.
pub fn thread_truncate_url(thread_url: &str) -> String {
    format!("{thread_url}/truncate")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_trimmed_bounded_and_empty_means_automatic() {
        assert_eq!(clean_title("  a \n b\t"), Ok(Some("a b".into())));
        assert_eq!(clean_title("   "), Ok(None));
        assert!(clean_title(&"x".repeat(MAX_TITLE_CHARS)).is_ok());
        assert!(clean_title(&"é".repeat(MAX_TITLE_CHARS + 1)).is_err());
    }
}

//! The verifier's bookkeeping of open spans (messages, tool calls, reasoning…) by id: opening
//! one twice or continuing one never opened is a violation, worded as the official client
//! words it; a continuation must stay in its opener's subagent lane.

use std::collections::HashMap;

use super::ProtocolError;

pub(super) fn open(
    items: &mut HashMap<String, Option<String>>,
    id: &str,
    lane: &Option<String>,
    what: &str,
    ty: &str,
) -> Result<(), ProtocolError> {
    if items.contains_key(id) {
        return Err(ProtocolError::Violation(format!(
            "Cannot send '{ty}' event: A {what} with ID '{id}' is already in progress. Complete it first."
        )));
    }
    items.insert(id.to_string(), lane.clone());
    Ok(())
}

pub(super) fn continuing(
    items: &HashMap<String, Option<String>>,
    id: &str,
    lane: &Option<String>,
    what: &str,
    ty: &str,
) -> Result<(), ProtocolError> {
    match items.get(id) {
        None => Err(ProtocolError::Violation(format!(
            "Cannot send '{ty}' event: No active {what} found with ID '{id}'. A start event must be sent first."
        ))),
        Some(opener) => match (opener, lane) {
            (Some(a), Some(b)) if a != b => Err(ProtocolError::Violation(format!(
                "'{ty}' for {what} '{id}' has subagentRunId '{b}', which does not match its opener's '{a}'"
            ))),
            _ => Ok(()),
        },
    }
}

pub(super) fn sorted(m: &HashMap<String, Option<String>>) -> Vec<(&String, &Option<String>)> {
    let mut v: Vec<_> = m.iter().collect();
    v.sort();
    v
}

pub(super) fn sorted_keys(m: &HashMap<String, Option<String>>) -> Vec<String> {
    let mut v: Vec<_> = m.keys().cloned().collect();
    v.sort();
    v
}

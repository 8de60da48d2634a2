//! The request header a user types for one Agent URL (the Connection popup), and the only
//! requests it goes with.

use leptos::prelude::*;

use super::is_local;

/// A request header the user typed for one Agent URL: sent to that URL only, never to this
/// server's own API (the browser's sign-in cookie speaks for the user there) nor to another
/// URL typed later.
#[derive(Clone, Copy)]
pub struct AgentHeader {
    /// `Name: value`, or a bare token meaning `Authorization: Bearer <token>`.
    pub value: RwSignal<String>,
    /// The Agent URL it was typed for.
    pub url: RwSignal<String>,
}

impl AgentHeader {
    pub fn new() -> Self {
        AgentHeader {
            value: RwSignal::new(String::new()),
            url: RwSignal::new(String::new()),
        }
    }

    /// The headers for a request to `target` (tracks the header and the URL it is for).
    pub fn for_url(&self, target: &str) -> Vec<(String, String)> {
        let value = self.value.get();
        let value = value.trim();
        if value.is_empty() || is_local(target) || self.url.with(|u| u != target) {
            return Vec::new();
        }
        match value.split_once(':') {
            Some((name, v))
                if !name.trim().is_empty()
                    && name
                        .trim()
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-') =>
            {
                vec![(name.trim().to_string(), v.trim().to_string())]
            }
            _ => vec![("Authorization".to_string(), format!("Bearer {value}"))],
        }
    }
}

impl Default for AgentHeader {
    fn default() -> Self {
        Self::new()
    }
}

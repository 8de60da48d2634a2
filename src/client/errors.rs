//! What the error banner says when a run fails before or outside its stream: what was tried,
//! and the likely cause (network, CORS and the `--proxy` way around it, an HTTP status with the
//! body's own message).

use serde_json::Value;

/// A run error to show in the banner.
#[derive(Debug, Clone, PartialEq)]
pub struct RunErrorView {
    pub message: String,
    pub code: Option<String>,
}

/// Where a run was sent, for explaining why it failed: the agent URL as typed, and whether it is
/// this page's own server.
pub struct Target {
    pub url: String,
    pub same_origin: bool,
}

/// The banner for a request the browser could not complete (no HTTP answer): what was tried
/// and the likely causes. A foreign agent is most often refused by CORS, which the browser
/// reports only as a network failure; the way around it is this server's `--proxy`.
pub fn network_failure(target: &Target, detail: &str) -> RunErrorView {
    let url = shorten_url(&target.url);
    let message = if target.same_origin {
        format!(
            "Could not reach this server at {url} ({detail}). Is agui-studio still running? The page keeps what it has; Retry sends the run again."
        )
    } else {
        format!(
            "Could not reach the agent at {url} ({detail}). Likely causes: the agent is not running or the URL is wrong; or the agent does not allow requests from this page (CORS). To use an agent that does not send CORS headers, start agui-studio with --proxy ID={url} and pick it in the agent list: the server relays it."
        )
    };
    RunErrorView {
        message,
        code: Some("NETWORK".into()),
    }
}

/// The banner for an HTTP error answered before any stream: the status, the URL, the body's
/// own error message, and what the status usually means for an AG-UI endpoint.
pub fn http_failure(target: &Target, status: u16, body: &str) -> RunErrorView {
    let detail = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("detail"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| body.trim().chars().take(300).collect());
    let hint = match status {
        401 | 403 => " The agent wants credentials: add a header under \"Auth\" next to the Agent URL.",
        404 => " Nothing answers at this path: check the Agent URL (an AG-UI agent takes a POST of RunAgentInput at its URL).",
        405 => " The URL does not take POST: it is probably not an AG-UI endpoint.",
        413 => " The request is over the server's size limit (long history or large attachments).",
        429 => " The server is busy: try again in a moment.",
        500..=599 => " The agent's server failed: its logs say why.",
        _ => "",
    };
    let url = shorten_url(&target.url);
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    };
    RunErrorView {
        message: format!("HTTP {status} from {url}{detail}.{hint}"),
        code: Some(format!("HTTP_{status}")),
    }
}

/// A URL short enough for a message (its query, which may hold a key, left out).
fn shorten_url(url: &str) -> String {
    let base = url.split(['?', '#']).next().unwrap_or(url);
    match base.char_indices().nth(120) {
        None => base.to_string(),
        Some((at, _)) => format!("{}…", &base[..at]),
    }
}

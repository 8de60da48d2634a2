//! The paths and headers of this server's endpoints, built in one place for server and browser.

/// The request header that asks the server to keep a run going when its client disconnects
/// (any value but `0`/`false`); the run then ends only by itself or by
/// `POST /api/runs/{run_id}/cancel`.
pub const DETACH_HEADER: &str = "x-agui-detach";
/// The response header of a run stream naming where its events can be re-read.
pub const RUN_EVENTS_HEADER: &str = "x-agui-run-events";

/// The URL of a run's event stream.
pub fn run_events_url(run_id: &str) -> String {
    format!("{}/events", run_url(run_id))
}

/// The URL of a run (`GET`: the run and its input).
pub fn run_url(run_id: &str) -> String {
    format!("/api/runs/{}", encode_segment(run_id))
}

/// The AG-UI endpoint of a hosted agent.
pub fn agent_url(agent_id: &str) -> String {
    format!("/api/agents/{}", encode_segment(agent_id))
}

/// Where this server answers as a CopilotKit runtime: `GET {base}/info`,
/// `POST {base}/agent/{id}/run|connect`, `POST {base}/agent/{id}/stop/{threadId}`, and the
/// single-route form `POST {base}` (`{method, params, body}`).
pub const COPILOTKIT_BASE: &str = "/api/copilotkit";

/// The agent a thread talks to when nothing else was chosen.
pub const DEFAULT_AGENT_URL: &str = "/api/agents/demo";

/// The list of stored threads.
pub const THREADS_URL: &str = "/api/threads";

/// The URL of a stored thread.
pub fn thread_url(thread_id: &str) -> String {
    format!("{THREADS_URL}/{}", encode_segment(thread_id))
}

/// Percent-encode one URL path segment.
pub fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

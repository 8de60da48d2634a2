//! The names generative UI travels under, in one place for the agents that send it and the
//! renderers that draw it: activity types and `forwardedProps` keys (see PROTOCOL.md §15).
//! A2UI's own names are in [`crate::protocol::a2ui`].

/// Activity type of CopilotKit's open generative UI (streamed HTML/CSS/JS).
pub const OPEN_GENERATIVE_UI: &str = "open-generative-ui";
/// Activity type of an MCP App (a tool's `ui://` HTML resource).
pub const MCP_APPS: &str = "mcp-apps";
/// The `forwardedProps` key of an A2UI surface's user action (`{userAction}`).
pub const A2UI_ACTION: &str = "a2uiAction";
/// The `forwardedProps` key of an MCP request an agent proxies for a client (an MCP App's
/// `resources/read` or `tools/call`), as the official AG-UI MCP Apps middleware names it.
pub const PROXIED_MCP_REQUEST: &str = "__proxiedMCPRequest";

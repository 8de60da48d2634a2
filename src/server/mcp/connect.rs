//! Reaching one `--mcp` server: start it or connect to it, shake hands, list its tools within
//! bounds.

use std::time::Duration;

use rmcp::model::{ClientConfig, JsonObject, PaginatedRequestParams};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Value};

use super::apps::{APPS_EXTENSION, APP_MIME};
use super::{chain, McpLimits, McpSpec, Transport, MAX_LIST_PAGES};

/// Start or reach one server, do the MCP handshake and list its tools (as JSON).
pub(super) async fn connect_one(
    spec: &McpSpec,
    limits: McpLimits,
) -> Result<(RunningService<RoleClient, ClientConfig>, Vec<Value>), String> {
    let service = match &spec.transport {
        Transport::Stdio { program, args } => {
            let mut cmd = tokio::process::Command::new(program);
            cmd.args(args).kill_on_drop(true);
            let transport = TokioChildProcess::new(cmd)
                .map_err(|e| format!("cannot start '{program}': {e}"))?;
            client_config()
                .serve(transport)
                .await
                .map_err(|e| chain(&e))?
        }
        Transport::Http(url) => {
            // Redirects are not followed: a server must not send our requests elsewhere.
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(Duration::from_secs(10))
                .user_agent(concat!("agui-studio/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| chain(&e))?;
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            let transport = StreamableHttpClientTransport::with_client(http, config);
            client_config()
                .serve(transport)
                .await
                .map_err(|e| chain(&e))?
        }
    };
    let tools = list_tools(&service, &spec.id, limits.max_tools).await?;
    Ok((service, tools))
}

/// The server's tools (as JSON), page by page: at most [`MAX_LIST_PAGES`] pages, and no page
/// more once `max_tools` are listed.
async fn list_tools(
    service: &RunningService<RoleClient, ClientConfig>,
    id: &str,
    max_tools: usize,
) -> Result<Vec<Value>, String> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        if page == MAX_LIST_PAGES {
            tracing::warn!(server = %id, "MCP server has more than {MAX_LIST_PAGES} pages of tools; the rest are not read");
            break;
        }
        let params = PaginatedRequestParams::default().with_cursor(cursor.take());
        let listed = service
            .peer()
            .list_tools(Some(params))
            .await
            .map_err(|e| format!("tools/list failed: {}", chain(&e)))?;
        let listed = serde_json::to_value(&listed).map_err(|e| e.to_string())?;
        tools.extend(listed["tools"].as_array().into_iter().flatten().cloned());
        cursor = listed["nextCursor"].as_str().map(str::to_string);
        if cursor.is_none() || tools.len() > max_tools {
            break;
        }
    }
    Ok(tools)
}

/// What this client tells servers at the handshake: its name, and that it hosts MCP Apps
/// (`extensions["io.modelcontextprotocol/ui"].mimeTypes`; servers may list UI tools only to
/// hosts that say so).
pub(super) fn client_config() -> ClientConfig {
    let mut config = ClientConfig::default();
    config.client_info.name = "agui-studio".into();
    config.client_info.version = env!("CARGO_PKG_VERSION").into();
    let mut ui = JsonObject::new();
    ui.insert("mimeTypes".into(), json!([APP_MIME]));
    config
        .capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(APPS_EXTENSION.into(), ui);
    config
}

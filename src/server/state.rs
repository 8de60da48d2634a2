//! The application state every handler gets: the agents, the runs, the accounts and the
//! server's settings resolved from its arguments — and how arguments become that state.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;
use leptos::prelude::*;

use super::accounts::Auth;
use super::agents::{self, AgentRegistry, RunSettings};
use super::clock;
use super::config::ServeArgs;
use super::limits;
use super::mcp;
use super::runs::Runs;
use super::startup::StartupError;
use super::store;

/// Everything a handler may need.
#[derive(Clone)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub agents: AgentRegistry,
    pub runs: Arc<Runs>,
    pub config: Arc<ServerConfig>,
    /// Accounts and browser sessions.
    pub auth: Arc<Auth>,
}

/// The server's settings, resolved from flags and environment.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub auth_token: Option<String>,
    pub cors_origins: Vec<String>,
    pub body_limit: usize,
    pub keep_alive: Duration,
    pub approval_timeout: Duration,
    pub token_delay: Duration,
    /// Request bodies being read and parsed at once, in KiB (twice the body limit).
    pub body_budget: Arc<tokio::sync::Semaphore>,
    pub body_budget_kib: u32,
    /// What one request, run or user may claim.
    pub limits: limits::Limits,
    /// Time to receive a request's headers (and an idle keep-alive connection's next request).
    pub header_timeout: Duration,
    /// Time to receive a request's body.
    pub body_timeout: Duration,
    /// Open connections at most.
    pub max_connections: usize,
    /// `--crowd-send-buffer` (None: 0, the kernel's tuning throughout).
    pub crowd_send_buffer: Option<usize>,
    /// Finished runs' events older than this are deleted (None: kept).
    pub retention: Option<Duration>,
    pub upstream: agents::upstream::UpstreamLimits,
    /// Lower case, without blanks.
    pub llm_image_schemes: Arc<[String]>,
    /// The address the server listens on (its `Host` is always accepted).
    pub addr: Option<std::net::SocketAddr>,
    /// `--allowed-host`.
    pub allowed_hosts: Vec<String>,
    /// CSP `frame-ancestors`.
    pub frame_ancestors: String,
}

/// The `--mcp-*` bounds.
fn mcp_limits(args: &ServeArgs) -> mcp::McpLimits {
    mcp::McpLimits {
        connect_timeout: Duration::from_secs(args.mcp_connect_timeout.max(1)),
        call_timeout: Duration::from_secs(args.mcp_call_timeout.max(1)),
        max_result_bytes: args.mcp_max_result_bytes.max(1),
        max_tools: args.mcp_max_tools,
        max_resource_bytes: args.mcp_max_resource_bytes.max(1),
        max_calls_per_round: args.mcp_max_calls_per_round.max(1),
    }
}

fn body_budget_kib(body_limit: usize) -> u32 {
    u32::try_from(body_limit.saturating_mul(2).div_ceil(1024).max(1)).unwrap_or(u32::MAX >> 4)
}

impl ServerConfig {
    pub fn from_args(args: &ServeArgs) -> Self {
        ServerConfig {
            auth_token: args.auth_token.clone().filter(|t| !t.is_empty()),
            cors_origins: args.cors_origins.clone(),
            body_limit: args.body_limit,
            keep_alive: Duration::from_secs(args.keep_alive.max(1)),
            approval_timeout: Duration::from_secs(args.approval_timeout),
            token_delay: Duration::from_millis(args.demo_delay_ms),
            body_budget: Arc::new(tokio::sync::Semaphore::new(
                body_budget_kib(args.body_limit) as usize,
            )),
            body_budget_kib: body_budget_kib(args.body_limit),
            limits: limits::Limits::from_args(args),
            header_timeout: Duration::from_secs(args.header_timeout.max(1)),
            body_timeout: Duration::from_secs(args.body_timeout.max(1)),
            max_connections: args.max_connections.max(1),
            crowd_send_buffer: (args.crowd_send_buffer > 0).then_some(args.crowd_send_buffer),
            retention: (args.retention_days > 0)
                .then(|| Duration::from_secs(args.retention_days.saturating_mul(86_400))),
            upstream: agents::upstream::UpstreamLimits {
                max_bytes: args.max_upstream_bytes,
                max_events: args.max_upstream_events,
            },
            llm_image_schemes: args
                .llm_image_schemes
                .iter()
                .map(|s| s.trim().trim_end_matches(':').to_ascii_lowercase())
                .filter(|s| !s.is_empty())
                .collect(),
            addr: args.addr,
            allowed_hosts: args
                .allowed_hosts
                .iter()
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty())
                .collect(),
            frame_ancestors: args.frame_ancestors.trim().to_string(),
        }
    }

    pub fn run_settings(&self) -> RunSettings {
        RunSettings {
            approval_timeout: self.approval_timeout,
            token_delay: self.token_delay,
            max_run_events: self.limits.max_run_events,
            state_limits: self.limits.state(),
            upstream: self.upstream,
            llm_image_schemes: self.llm_image_schemes.clone(),
        }
    }
}

impl AppState {
    /// State for the given arguments: the agents they name, the database opened (and runs a
    /// previous process left in progress marked interrupted).
    pub async fn new(args: &ServeArgs) -> Result<Self, StartupError> {
        let mut agents = AgentRegistry::default();
        for id in &args.agents {
            match id.trim() {
                "demo" => agents.insert(Arc::new(agents::demo::DemoAgent)),
                "" => {}
                other => return Err(StartupError::UnknownAgent(other.to_string())),
            }
        }
        let http_client = |flag: &'static str, id: &str| {
            let id = id.to_string();
            move |source| StartupError::HttpClient { flag, id, source }
        };
        // MCP servers serve the LLM agents only: none are started without one.
        let mcp = if args.llm.is_empty() {
            if !args.mcp.is_empty() {
                tracing::warn!(
                    "--mcp is given but no --llm agent could use its tools; not connecting"
                );
            }
            Arc::new(mcp::McpHub::default())
        } else {
            Arc::new(mcp::McpHub::connect(&args.mcp, mcp_limits(args)).await)
        };
        for spec in &args.llm {
            let agent = agents::llm::LlmAgent::new(spec.clone(), mcp.clone())
                .map_err(http_client("--llm", &spec.id))?;
            agents.insert(Arc::new(agent));
        }
        for spec in &args.proxy {
            let agent = agents::proxy::ProxyAgent::new(spec.clone())
                .map_err(http_client("--proxy", &spec.id))?;
            agents.insert(Arc::new(agent));
        }
        let users =
            match &args.users {
                Some(path) => Some(std::fs::read_to_string(path).map_err(|source| {
                    StartupError::UsersFile {
                        path: path.display().to_string(),
                        source,
                    }
                })?),
                None => None,
            };
        let auth = Auth::new(args.auth_token.as_deref(), users.as_deref())?;
        agents.set_facts(agents::capabilities::ServerFacts {
            durable: !store::Store::is_memory(&args.db),
        });
        let store = store::Store::open(&args.db).await?;
        match store.recover(clock::now_ms()).await {
            Ok(0) => {}
            Ok(n) => tracing::warn!(
                "{n} run(s) were in progress when the server stopped; marked interrupted"
            ),
            Err(source) => {
                return Err(StartupError::Recover {
                    path: args.db.clone(),
                    source,
                })
            }
        }
        let leptos_options = leptos_options();
        let mut config = ServerConfig::from_args(args);
        config.addr = Some(args.addr.unwrap_or(leptos_options.site_addr));
        Ok(AppState {
            leptos_options,
            agents,
            runs: Runs::with_store_and_limits(store, config.limits.clone()),
            config: Arc::new(config),
            auth: Arc::new(auth),
        })
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// The Leptos options: from the environment cargo-leptos sets, with our output name when the
/// binary was built without cargo-leptos.
pub fn leptos_options() -> LeptosOptions {
    let fallback = || LeptosOptions::builder().output_name("agui-studio").build();
    // Without cargo-leptos's variables (`cargo test`), Leptos would print a warning meant for a
    // misconfigured build; the defaults are right here.
    let from_cargo_leptos = std::env::var_os("LEPTOS_OUTPUT_NAME").is_some()
        || option_env!("LEPTOS_OUTPUT_NAME").is_some();
    let mut options = if from_cargo_leptos {
        get_configuration(None)
            .map(|c| c.leptos_options)
            .unwrap_or_else(|_| fallback())
    } else {
        fallback()
    };
    if options.output_name.is_empty() {
        options.output_name = "agui-studio".into();
    }
    options
}

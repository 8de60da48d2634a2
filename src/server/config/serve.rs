//! `ServeArgs`: the options of `agui-studio serve` (and of a bare `agui-studio`), flag and env.

use std::net::SocketAddr;
use std::path::PathBuf;

use std::str::FromStr;

use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on [default: LEPTOS_SITE_ADDR, else 127.0.0.1:3000].
    #[arg(long, env = "AGUI_ADDR", value_name = "HOST:PORT")]
    pub addr: Option<SocketAddr>,

    /// Require this token on everything but /healthz and the static files: API clients send
    /// `Authorization: Bearer <TOKEN>`, browsers sign in once with it (a session cookie). One
    /// user, named `default`. Unset (and no --users): no authentication.
    #[arg(
        long,
        env = "AGUI_AUTH_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub auth_token: Option<String>,

    /// Origins allowed to call the API from a browser (CORS), comma-separated or repeated, e.g.
    /// `https://app.example.com`. Default: none (same-origin only). `*` allows any origin.
    #[arg(
        long = "cors-origin",
        env = "AGUI_CORS_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    pub cors_origins: Vec<String>,

    /// Largest accepted request body, in bytes.
    #[arg(long, env = "AGUI_BODY_LIMIT", default_value_t = 16 * 1024 * 1024, value_name = "BYTES")]
    pub body_limit: usize,

    /// Agents to serve, comma-separated. Available: demo.
    #[arg(
        long,
        env = "AGUI_AGENTS",
        value_delimiter = ',',
        default_value = "demo",
        value_name = "IDS"
    )]
    pub agents: Vec<String>,

    /// An OpenAI-compatible LLM agent, repeatable (env: `;`-separated):
    /// `ID=BASE_URL[,model=NAME][,key-env=VAR][,key=KEY][,tools=demo|none]`, e.g.
    /// `ollama=http://127.0.0.1:11434/v1,model=llama3.2` or
    /// `openai=https://api.openai.com/v1,model=gpt-4o-mini,key-env=OPENAI_API_KEY`.
    /// Served at `POST /api/agents/ID`.
    #[arg(
        long = "llm",
        env = "AGUI_LLM",
        value_delimiter = ';',
        value_name = "SPEC",
        value_parser = crate::server::agents::llm::spec::LlmSpec::from_str
    )]
    pub llm: Vec<crate::server::agents::llm::spec::LlmSpec>,

    /// A foreign AG-UI agent to proxy, repeatable (env: `;`-separated):
    /// `ID=URL[,header=NAME:VALUE][,header-env=NAME:VAR][,transport=sse|proto]`, e.g.
    /// `crew=http://127.0.0.1:8000/agent,header-env=Authorization:CREW_AUTH`. Its events go through
    /// this server's pipeline (dialects, verification, persistence). `transport=proto` asks it for
    /// the protobuf binding (SSE is still read if that is what it answers). Served at
    /// `POST /api/agents/ID`.
    #[arg(
        long = "proxy",
        env = "AGUI_PROXY",
        value_delimiter = ';',
        value_name = "SPEC",
        value_parser = crate::server::agents::proxy::spec::ProxySpec::from_str
    )]
    pub proxy: Vec<crate::server::agents::proxy::spec::ProxySpec>,

    /// An MCP server whose tools the `--llm` agents may call, repeatable (env: `;`-separated):
    /// `ID=stdio:COMMAND [ARG]…` (a child process; arguments split at blanks, no shell) or
    /// `ID=http(s)://HOST/PATH` (streamable HTTP), e.g.
    /// `everything=stdio:npx -y @modelcontextprotocol/server-everything`. Its tools are offered
    /// to the model as `mcp__ID__TOOL` and run by this server. Connected at startup; one that
    /// fails is logged and left out. A tool linking a `ui://` view (MCP Apps) also produces an
    /// `mcp-apps` activity; the view's HTML and its tool calls come through this server.
    #[arg(
        long = "mcp",
        env = "AGUI_MCP",
        value_delimiter = ';',
        value_name = "SPEC",
        value_parser = crate::server::mcp::McpSpec::from_str
    )]
    pub mcp: Vec<crate::server::mcp::McpSpec>,

    /// Seconds an MCP server has to start, shake hands and list its tools at startup.
    #[arg(
        long,
        env = "AGUI_MCP_CONNECT_TIMEOUT",
        default_value_t = 30,
        value_name = "SECONDS"
    )]
    pub mcp_connect_timeout: u64,

    /// Seconds one MCP tool call may take; past it the model reads an error as the result.
    #[arg(
        long,
        env = "AGUI_MCP_CALL_TIMEOUT",
        default_value_t = 30,
        value_name = "SECONDS"
    )]
    pub mcp_call_timeout: u64,

    /// Largest MCP tool result passed to the model and the client, in bytes (cut with a note).
    #[arg(long, env = "AGUI_MCP_MAX_RESULT_BYTES", default_value_t = 64 * 1024, value_name = "BYTES")]
    pub mcp_max_result_bytes: usize,

    /// Most tools offered from one MCP server (the first ones it lists).
    #[arg(
        long,
        env = "AGUI_MCP_MAX_TOOLS",
        default_value_t = 64,
        value_name = "N"
    )]
    pub mcp_max_tools: usize,

    /// Largest MCP App resource (a tool's `ui://` HTML, read with `resources/read` when the
    /// studio shows the app) passed on, in bytes; a larger one is refused.
    #[arg(long, env = "AGUI_MCP_MAX_RESOURCE_BYTES", default_value_t = 2 << 20, value_name = "BYTES")]
    pub mcp_max_resource_bytes: usize,

    /// Most MCP tool calls the model may make in one round; the others are answered with an
    /// error without reaching the server.
    #[arg(
        long,
        env = "AGUI_MCP_MAX_CALLS_PER_ROUND",
        default_value_t = 16,
        value_name = "N"
    )]
    pub mcp_max_calls_per_round: usize,

    /// SQLite database file for threads, runs and their events (created if missing; WAL mode).
    /// `:memory:` keeps nothing across restarts.
    #[arg(
        long,
        env = "AGUI_DB",
        default_value = "agui-studio.db",
        value_name = "PATH"
    )]
    pub db: String,

    /// Seconds an in-stream approval waits for `POST /api/ag-ui/tool-result` before the run
    /// ends with RUN_ERROR (code APPROVAL_TIMEOUT).
    #[arg(
        long,
        env = "AGUI_APPROVAL_TIMEOUT",
        default_value_t = 300,
        value_name = "SECONDS"
    )]
    pub approval_timeout: u64,

    /// Milliseconds between the demo agent's streamed text chunks (0: as fast as possible).
    #[arg(
        long,
        env = "AGUI_DEMO_DELAY_MS",
        default_value_t = 12,
        value_name = "MS"
    )]
    pub demo_delay_ms: u64,

    /// Seconds of silence after which a stream sends an SSE keep-alive comment.
    #[arg(
        long,
        env = "AGUI_KEEP_ALIVE",
        default_value_t = 15,
        value_name = "SECONDS"
    )]
    pub keep_alive: u64,

    /// Longest accepted id (thread, run, message, tool call), in bytes. Ids are 1..=N bytes of
    /// `A-Za-z0-9` and `-_.:~@+=`; anything else is refused with 422 before a run starts.
    #[arg(
        long,
        env = "AGUI_MAX_ID_BYTES",
        default_value_t = 256,
        value_name = "BYTES"
    )]
    pub max_id_bytes: usize,

    /// Most messages one run request may carry (422 past it).
    #[arg(
        long,
        env = "AGUI_MAX_MESSAGES",
        default_value_t = 10_000,
        value_name = "N"
    )]
    pub max_messages: usize,

    /// Largest shared state, in bytes of JSON: in a request (413) and after an agent's
    /// snapshots and patches (the run ends with RUN_ERROR STATE_LIMIT, the state unchanged).
    #[arg(long, env = "AGUI_MAX_STATE_BYTES", default_value_t = 4 * 1024 * 1024, value_name = "BYTES")]
    pub max_state_bytes: usize,

    /// Deepest nesting of any JSON the server parses or builds (requests, state after patches).
    #[arg(
        long,
        env = "AGUI_MAX_JSON_DEPTH",
        default_value_t = 64,
        value_name = "LEVELS"
    )]
    pub max_json_depth: usize,

    /// Most events one run may produce; past it the run ends with RUN_ERROR EVENT_LIMIT.
    #[arg(
        long,
        env = "AGUI_MAX_RUN_EVENTS",
        default_value_t = 1_000_000,
        value_name = "N"
    )]
    pub max_run_events: u64,

    /// Most runs in progress at once, in total (429 past it).
    #[arg(long, env = "AGUI_MAX_RUNS", default_value_t = 256, value_name = "N")]
    pub max_runs: usize,

    /// Most runs in progress at once for one user (429 past it).
    #[arg(
        long,
        env = "AGUI_MAX_RUNS_PER_USER",
        default_value_t = 32,
        value_name = "N"
    )]
    pub max_runs_per_user: usize,

    /// Most observer streams (`GET /api/ag-ui/stream`, and CopilotKit `connect` streams following
    /// a live run) open at once for one user (429 past it).
    #[arg(
        long,
        env = "AGUI_MAX_OBSERVERS_PER_USER",
        default_value_t = 64,
        value_name = "N"
    )]
    pub max_observers_per_user: usize,

    /// Memory for the conversations of threads without a run in progress (approximate bytes);
    /// the least recently run leave memory first and are read back from the database.
    #[arg(long, env = "AGUI_IDLE_THREADS_BYTES", default_value_t = 64 * 1024 * 1024, value_name = "BYTES")]
    pub idle_threads_bytes: usize,

    /// Seconds a client has to send a request's headers (also how long an idle keep-alive
    /// connection waits for its next request).
    #[arg(
        long,
        env = "AGUI_HEADER_TIMEOUT",
        default_value_t = 10,
        value_name = "SECONDS"
    )]
    pub header_timeout: u64,

    /// Seconds a client has to send a request's body.
    #[arg(
        long,
        env = "AGUI_BODY_TIMEOUT",
        default_value_t = 30,
        value_name = "SECONDS"
    )]
    pub body_timeout: u64,

    /// Most connections open at once (also capped below the process's file-descriptor limit);
    /// further clients wait in the listen queue.
    #[arg(
        long,
        env = "AGUI_MAX_CONNECTIONS",
        default_value_t = 1024,
        value_name = "N"
    )]
    pub max_connections: usize,

    /// Connections the kernel may queue for the server before it accepts them (the listen
    /// backlog; Linux caps it at `net.core.somaxconn`). A burst of clients beyond it has its
    /// connection attempts dropped and retried by the client a second later.
    #[arg(
        long,
        env = "AGUI_LISTEN_BACKLOG",
        default_value_t = crate::server::listen::DEFAULT_BACKLOG,
        value_name = "N"
    )]
    pub listen_backlog: u32,

    /// Send buffer (bytes) of each connection accepted while the server is crowded (1,024 or
    /// more open connections, until they fall to half that); 0 leaves every socket to the
    /// kernel's tuning. Linux doubles the value for its bookkeeping and caps it at
    /// `net.core.wmem_max`. Left to itself the kernel grows each busy socket's buffer towards
    /// `net.ipv4.tcp_wmem`'s maximum (4 MB), and ten thousand observers of one run took the
    /// kernel's TCP memory past its pressure threshold, where every socket slows down.
    #[arg(
        long,
        env = "AGUI_CROWD_SEND_BUFFER",
        default_value_t = crate::server::listen::DEFAULT_CROWD_SEND_BUFFER,
        value_name = "BYTES"
    )]
    pub crowd_send_buffer: usize,

    /// Days to keep finished runs' events; older ones are deleted (threads' messages and state
    /// are kept). 0 keeps everything.
    #[arg(
        long = "retention",
        env = "AGUI_RETENTION",
        default_value_t = 0,
        value_name = "DAYS"
    )]
    pub retention_days: u64,

    /// Log filter, e.g. `info` or `agui_studio=debug,tower_http=info`.
    #[arg(long, env = "AGUI_LOG", default_value = "info", value_name = "FILTER")]
    pub log: String,

    /// Most bytes one proxied agent's or model server's response may send into a run (an LLM
    /// run's tool rounds and MCP results together); past it the run ends with RUN_ERROR (code
    /// RunErrorCode::UpstreamLimit).
    #[arg(long, env = "AGUI_MAX_UPSTREAM_BYTES", default_value_t = crate::server::runs::context::DEFAULT_MAX_UPSTREAM_BYTES, value_name = "BYTES")]
    pub max_upstream_bytes: u64,

    /// Most events (SSE chunks of a model server) one upstream response may send into a run;
    /// past it the run ends with RUN_ERROR (code RunErrorCode::UpstreamLimit).
    #[arg(
        long,
        env = "AGUI_MAX_UPSTREAM_EVENTS",
        default_value_t = crate::server::runs::context::DEFAULT_MAX_UPSTREAM_EVENTS,
        value_name = "N"
    )]
    pub max_upstream_events: u64,

    /// URL schemes of image (and other media) parts forwarded to an `--llm` model, comma-
    /// separated. A request with a media URL of another scheme is refused (422): the model
    /// server would fetch it from where it runs (`http://169.254.169.254/…`, `file:///…`).
    #[arg(
        long,
        env = "AGUI_LLM_IMAGE_SCHEMES",
        value_delimiter = ',',
        default_value = "data,https",
        value_name = "LIST"
    )]
    pub llm_image_schemes: Vec<String>,
    /// Users, one per line: `NAME:sha256:HEX` (the SHA-256 of their token; `#` comments).
    /// Make a line with `agui-studio hash-token NAME`. Each user sees only their own threads,
    /// runs, observer events and approvals.
    #[arg(long, env = "AGUI_USERS", value_name = "FILE")]
    pub users: Option<PathBuf>,

    /// A `Host` this server answers for besides the bound address, `localhost`, `127.0.0.1`
    /// and `[::1]` (others get 421, which stops DNS rebinding). Repeatable or comma-separated;
    /// `NAME` allows any port, `NAME:PORT` one; `*` turns the check off. A server reached by
    /// a public name or a LAN address needs it.
    #[arg(
        long = "allowed-host",
        env = "AGUI_ALLOWED_HOSTS",
        value_delimiter = ',',
        value_name = "HOST"
    )]
    pub allowed_hosts: Vec<String>,

    /// The page's CSP `frame-ancestors`: who may frame it (`'none'`: nobody; e.g. `'self'
    /// https://portal.example`).
    #[arg(
        long,
        env = "AGUI_FRAME_ANCESTORS",
        default_value = "'none'",
        value_name = "SOURCES"
    )]
    pub frame_ancestors: String,
}

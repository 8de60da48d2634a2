//! Command-line and environment configuration.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// An AG-UI server and a live AG-UI client UI in one binary.
///
/// Without a subcommand it serves the web UI and the AG-UI endpoints.
#[derive(Debug, Parser)]
#[command(name = "agui-studio", version, about, long_about = None, args_override_self = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the web UI and the AG-UI endpoints (the default).
    Serve(ServeArgs),
    /// Print a `--users` file line for NAME: `NAME:sha256:HEX` of the token read from standard
    /// input (its first line), or of a fresh random token with `--generate` (printed on
    /// standard error, to hand to the user; it is not stored anywhere).
    HashToken(HashTokenArgs),
    /// Run a recorded AG-UI stream through the full client pipeline and print a JSON report.
    ///
    /// The input may be raw SSE, JSON Lines (one event per line), a JSON array of events, or a
    /// conformance fixture (an object with a "stream" array); the format is detected. Exit
    /// status 0 when the stream completed, 1 when it failed or was truncated, 2 on bad usage.
    Inspect(InspectArgs),
}

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
        value_name = "SPEC"
    )]
    pub llm: Vec<String>,

    /// A foreign AG-UI agent to proxy, repeatable (env: `;`-separated):
    /// `ID=URL[,header=NAME:VALUE][,header-env=NAME:VAR]`, e.g.
    /// `crew=http://127.0.0.1:8000/agent,header-env=Authorization:CREW_AUTH`. Its events go through
    /// this server's pipeline (dialects, verification, persistence). Served at
    /// `POST /api/agents/ID`.
    #[arg(
        long = "proxy",
        env = "AGUI_PROXY",
        value_delimiter = ';',
        value_name = "SPEC"
    )]
    pub proxy: Vec<String>,

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

    /// Log filter, e.g. `info` or `agui_studio=debug,tower_http=info`.
    #[arg(long, env = "AGUI_LOG", default_value = "info", value_name = "FILTER")]
    pub log: String,

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

#[derive(Debug, Clone, Args)]
pub struct HashTokenArgs {
    /// The user's name (letters, digits and `-_.@+`).
    pub name: String,

    /// Make a random token instead of reading one.
    #[arg(long)]
    pub generate: bool,
}

#[derive(Debug, Clone, Args)]
pub struct InspectArgs {
    /// The recorded stream; `-` or nothing reads standard input.
    #[arg(value_name = "FILE|-")]
    pub file: Option<PathBuf>,

    /// The RunAgentInput (JSON file) that started the run: its messages and state are the
    /// conversation's starting point, and the report shows the request a client would send.
    #[arg(long, value_name = "RUN_AGENT_INPUT.json")]
    pub input: Option<PathBuf>,

    /// Treat the producer as speaking at most this protocol version (e.g. 0.0.45), turning on
    /// the downgrades an older peer needs.
    #[arg(long, value_name = "V")]
    pub max_protocol_version: Option<String>,

    /// Pretty-print the report.
    #[arg(long)]
    pub pretty: bool,
}

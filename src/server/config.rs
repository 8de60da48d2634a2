//! Command-line and environment configuration.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

mod serve;

pub use serve::ServeArgs;

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

// One value per process, parsed once: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
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

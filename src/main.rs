//! The agui-studio binary: serves the AG-UI server and UI (default), or inspects a recorded
//! stream (`agui-studio inspect`), or hashes a user's token (`agui-studio hash-token`).

use clap::Parser;

use agui_studio::server::config::{Cli, Command};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::HashToken(args)) => agui_studio::server::auth::hash_token_command(args),
        Some(Command::Inspect(args)) => agui_studio::server::inspect::run(args),
        Some(Command::Serve(serve)) => agui_studio::server::serve(serve).await,
        None => agui_studio::server::serve(cli.serve).await,
    }
}

//! The axum server: application state, the router and the listener.

pub mod assets;
pub mod config;
pub mod inspect;

use std::process::ExitCode;

use axum::extract::FromRef;
use axum::routing::get;
use axum::{Json, Router};
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use serde_json::json;

use crate::ui::app::{shell, App};
use config::ServeArgs;

/// Everything a handler may need.
#[derive(Clone)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// The Leptos options: from the environment cargo-leptos sets, with our output name when the
/// binary was built without cargo-leptos.
pub fn leptos_options() -> LeptosOptions {
    let mut options = get_configuration(None)
        .map(|c| c.leptos_options)
        .unwrap_or_else(|_| LeptosOptions::builder().output_name("agui-studio").build());
    if options.output_name.is_empty() {
        options.output_name = "agui-studio".into();
    }
    options
}

/// The whole application as a router, so tests can drive it without a socket.
pub fn app(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let options = state.leptos_options.clone();
    Router::new()
        .route("/healthz", get(healthz))
        .leptos_routes(&state, routes, move || shell(options.clone()))
        .fallback(assets::static_or_not_found)
        .with_state(state)
}

async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION"), "site": assets::has_site() }))
}

/// Run the server until Ctrl-C or SIGTERM.
pub async fn serve(args: ServeArgs) -> ExitCode {
    init_tracing(&args.log);
    let leptos_options = leptos_options();
    let addr = args.addr.unwrap_or(leptos_options.site_addr);
    let state = AppState { leptos_options };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("cannot listen on {addr}: {e}");
            return ExitCode::from(1);
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    tracing::info!("agui-studio {} listening on http://{local}", env!("CARGO_PKG_VERSION"));
    if let Err(e) = axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown_signal())
        .await
    {
        tracing::error!("server error: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn init_tracing(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).try_init();
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

//! The axum server: the router and the listener (the application state is in `state`).

pub mod accounts;
pub mod agents;
#[cfg(feature = "alloc-stats")]
pub mod alloc_stats;
pub mod assets;
pub mod auth;
pub mod block_pool;
pub mod clock;
pub mod config;
pub mod error;
pub mod inspect;
pub mod limits;
pub mod listen;
pub mod mcp;
pub mod named_encoder;
pub mod page;
pub mod routes;
pub mod runs;
pub mod startup;
pub mod state;
pub mod store;
pub mod stream;
pub mod thread_edits;
pub mod thread_views;
pub mod trim;

use std::process::ExitCode;
use std::time::Duration;

use axum::routing::get;
use axum::{Json, Router};
use leptos::prelude::*;
use leptos_axum::{generate_route_list, AxumRouteListing, LeptosRoutes};
use serde_json::json;

use crate::ui::app::{shell, App};
use config::ServeArgs;
pub use state::{leptos_options, AppState, ServerConfig};

/// The whole application as a router, so tests can drive it without a socket.
///
/// Layers, outermost first: security headers (and the page's CSP nonce), the guard (Host,
/// Origin, JSON bodies), authentication (the [`accounts::User`] of every request), then the
/// routes. Only `/healthz`, the sign-in endpoints and the static files are open to all.
pub fn app(state: AppState) -> Router {
    use axum::middleware::from_fn_with_state;
    let routes = route_list();
    let options = state.leptos_options.clone();
    let api = match cors(&state.config) {
        Some(cors) => routes::api_router(&state).layer(cors),
        None => routes::api_router(&state),
    };
    Router::new()
        .merge(api)
        .merge(auth::router())
        .route("/healthz", get(healthz))
        .leptos_routes_with_context(
            &state,
            routes,
            {
                let page = page::page_data(&state);
                move || provide_context(page.clone())
            },
            move || shell(options.clone()),
        )
        .fallback(assets::static_or_not_found)
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            state.config.body_timeout,
        ))
        .layer(from_fn_with_state(state.clone(), auth::authenticate))
        .layer(from_fn_with_state(state.clone(), auth::guard))
        .layer(from_fn_with_state(state.clone(), auth::security_headers))
        .with_state(state)
}

/// The page's routes, listed once per process. Listing them renders the app with resources
/// held back by a flag that Leptos keeps for the whole process: a resource that a page being
/// served meanwhile polls for the first time waits forever, and so does its response (the
/// page's `Transition` never resolves). A second router built while a first one serves (tests
/// do it all the time; so may a program that embeds the server) must not list them again.
fn route_list() -> Vec<AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<AxumRouteListing>> = std::sync::OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(App)).clone()
}

/// CORS for the API: only the configured origins; `*` allows any origin. None configured (the
/// default): no CORS layer, so browsers allow same-origin calls only, and responses carry no
/// `vary` or `access-control-*` header that says nothing to anyone. (An SSE response then has
/// six headers, which is what the `HeaderMap` hyper keeps for each open connection has room
/// for without growing: 1,248 → 624 bytes for every stream held open.)
fn cors(config: &ServerConfig) -> Option<tower_http::cors::CorsLayer> {
    use axum::http::{header, HeaderValue, Method};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    if config.cors_origins.is_empty() {
        return None;
    }
    let origins = if config.cors_origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(
            config
                .cors_origins
                .iter()
                .filter_map(|o| HeaderValue::from_str(o.trim()).ok()),
        )
    };
    let layer = CorsLayer::new()
        .allow_origin(origins)
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers([
            header::CONTENT_TYPE,
            header::AUTHORIZATION,
            header::ACCEPT,
            header::HeaderName::from_static("last-event-id"),
            header::HeaderName::from_static(crate::wire::DETACH_HEADER),
        ])
        .expose_headers([header::HeaderName::from_static(
            crate::wire::RUN_EVENTS_HEADER,
        )]);
    Some(layer)
}

async fn healthz() -> Json<serde_json::Value> {
    Json(
        json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION"), "site": assets::has_site() }),
    )
}

/// Run the server until Ctrl-C or SIGTERM.
pub async fn serve(args: ServeArgs) -> ExitCode {
    init_tracing(&args.log);
    let state = match AppState::new(&args).await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!("{e}");
            return ExitCode::from(2);
        }
    };
    let addr = args.addr.unwrap_or(state.leptos_options.site_addr);
    let listener = match listen::bind(addr, args.listen_backlog) {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("cannot listen on {addr}: {e}");
            return ExitCode::from(1);
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    tracing::info!(
        "agui-studio {} listening on http://{local}",
        env!("CARGO_PKG_VERSION")
    );
    if let (Some(keep), Some(store)) = (state.config.retention, state.runs.store()) {
        tokio::spawn(store::retention::retention_task(store.clone(), keep));
    }
    let limits = listen_limits(&state);
    let drain = Duration::from_secs(10);
    let store = state.runs.store().cloned();
    let served = listen::serve(listener, app(state), limits, shutdown_signal(), drain).await;
    // The writer has a thread of its own, which the process's end would stop wherever it is:
    // what the runs have queued is committed first (bounded like the drain).
    if let Some(store) = store {
        if tokio::time::timeout(drain, store.flush()).await.is_err() {
            tracing::warn!("the database's last writes were still being committed at the stop");
        }
    }
    if let Err(e) = served {
        tracing::error!("server error: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// How the accept loop bounds connections for `state`, and what it hands back after a crowd
/// (the database's caches; what the runs keep in memory is copied off the crowd's pages).
pub fn listen_limits(state: &AppState) -> listen::ListenLimits {
    listen::ListenLimits {
        header_timeout: state.config.header_timeout,
        max_connections: state.config.max_connections,
        crowd_send_buffer: state.config.crowd_send_buffer,
        release: Some({
            let runs = state.runs.clone();
            trim::Release(std::sync::Arc::new(move || {
                let runs = runs.clone();
                Box::pin(async move {
                    if let Some(store) = runs.store() {
                        store.release_memory().await;
                    }
                    let _ = tokio::task::spawn_blocking(move || runs.relocate_after_crowd()).await;
                })
            }))
        }),
    }
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
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

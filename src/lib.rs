//! agui-studio: an AG-UI server and a live AG-UI client UI in one crate.
//!
//! `protocol` is pure (no I/O) and compiles for the server and for `wasm32-unknown-unknown`;
//! `server` is the axum side (feature `ssr`); `ui` renders on both sides; `client` is the
//! browser transport (feature `hydrate`).

#![recursion_limit = "256"]

pub mod client;
pub mod protocol;
pub mod ui;
pub mod wire;

#[cfg(feature = "ssr")]
pub mod server;

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // What a run draws comes with a run's code (see `client::browser::engine`).
    client::load_with_engine(|| {
        Box::pin(async {
            futures::join!(ui::message::preload(), ui::approval::preload());
        })
    });
    // The chunks of the lazy views the server rendered load first (see `ui::lazy`).
    wasm_bindgen_futures::spawn_local(async {
        futures::join!(
            ui::activity::preload_rendered(),
            ui::render_hints::preload_rendered(),
            ui::schema_form::preload_rendered(),
            ui::message::preload_rendered(),
            ui::thread_store::parse::preload_rendered(),
        );
        leptos::mount::hydrate_body(ui::app::App);
    });
}

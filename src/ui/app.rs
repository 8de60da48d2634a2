//! The application shell and root component.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

/// The HTML document the server renders around the app.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The root component: routes of the app.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <Stylesheet id="leptos" href="/pkg/agui-studio.css"/>
        <Title text="agui-studio"/>
        <Router>
            <Routes fallback=NotFound>
                <Route path=path!("/") view=Home/>
            </Routes>
        </Router>
    }
}

/// The start page. The live client UI replaces it; it already proves that hydration works.
#[component]
fn Home() -> impl IntoView {
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! {
        <main class="app">
            <header class="app-header">
                <h1>"agui-studio"</h1>
                <p class="tagline">"An AG-UI server and a live AG-UI client in one binary."</p>
            </header>
            <section class="card">
                <p>
                    "Status: "
                    <span id="hydration-status" data-hydrated=move || hydrated.get().to_string()>
                        {move || if hydrated.get() { "interactive" } else { "server-rendered" }}
                    </span>
                </p>
                <p>"Health: " <a href="/healthz">"/healthz"</a></p>
            </section>
        </main>
    }
}

#[component]
fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    {
        if let Some(resp) = use_context::<leptos_axum::ResponseOptions>() {
            resp.set_status(axum::http::StatusCode::NOT_FOUND);
        }
    }
    view! {
        <main class="app">
            <h1>"Not found"</h1>
            <p><a href="/">"Back to agui-studio"</a></p>
        </main>
    }
}

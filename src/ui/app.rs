//! The application shell and root component.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};

/// The HTML document the server renders around the app.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
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

/// The root component.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! {
        <Stylesheet id="leptos" href="/pkg/agui-studio.css"/>
        <Title text="agui-studio"/>
        <main class="app">
            <h1>"agui-studio"</h1>
            <p>"An AG-UI server and client in one binary."</p>
            <p id="hydration-status" data-hydrated=move || hydrated.get().to_string()>
                {move || if hydrated.get() { "interactive" } else { "server-rendered" }}
            </p>
        </main>
    }
}

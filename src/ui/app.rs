//! The application shell, the router and the studio page: a live AG-UI client.
//!
//! Layout: a header (product name, agent picker and "Agent URL", panel toggles, theme toggle),
//! the threads of this tab on the left, the conversation in the middle (transcript, run status,
//! composer), and the shared-state and event-inspector panels in the dock on the right when
//! toggled (a resizable column on a wide screen, a drawer on a narrower one, a full-screen
//! sheet on a phone: see `dock`). On a phone the threads become a strip under the header and
//! the composer stays at the bottom of the screen.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::hooks::use_query_map;
use leptos_router::{path, SsrMode};

use crate::client::history::use_history;
use crate::client::session::SendInput;
use crate::ui::agent_caps::{AgentCaps, ReasoningToggle};
use crate::ui::agent_picker::{agents_resource, AgentPicker};
use crate::ui::chat::Chat;
use crate::ui::composer::Composer;
use crate::ui::dock::{Dock, DockWidth};
use crate::ui::inspector::{lazy_inspector, InspectorProps};
use crate::ui::run_status::RunStatus;
use crate::ui::state_panel::{lazy_state_panel, StatePanelProps};
use crate::ui::suggestions::Suggestions;
use crate::ui::theme::{ThemeToggle, THEME_BOOT_SCRIPT};
use crate::ui::thread_list::ThreadList;
use crate::ui::thread_store::{
    initial_threads, AgentHeader, InitialThreads, ThreadRecord, ThreadStore,
};

/// The HTML document the server renders around the app.
///
/// Every inline script carries the response's CSP nonce: the server's security-headers layer
/// makes it and names it in the `Content-Security-Policy` header, and it is provided here so
/// that Leptos's own scripts (hydration, resolved resources) carry the same one.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(nonce) = use_context::<axum::http::request::Parts>()
        .and_then(|p| p.extensions.get::<leptos::nonce::Nonce>().cloned())
    {
        provide_context(nonce);
    }
    let nonce = leptos::nonce::use_nonce();
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="light dark"/>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                <script nonce=nonce>{THEME_BOOT_SCRIPT}</script>
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
                // Async: the page is complete HTML (the thread of `?thread=` included) even for a
                // reader without JavaScript.
                <Route path=path!("/") view=Studio ssr=SsrMode::Async/>
            </Routes>
        </Router>
    }
    .into_any()
}

/// The studio: talk to an AG-UI agent and see everything it streams. The thread named by
/// `?thread=` (and the list of stored threads) is loaded while the server renders the page.
#[component]
pub fn Studio() -> impl IntoView {
    let requested = use_query_map()
        .with_untracked(|q| q.get("thread"))
        .filter(|t| !t.is_empty());
    let initial = Resource::<_, crate::ui::codec::ViaValue>::new_with_options(
        || (),
        move |_| initial_threads(requested.clone()),
        false,
    );
    // A transition, not a suspense: once the page is there it stays while a lazy view inside
    // it waits for its chunk (under a suspense, any such wait put the whole page back to the
    // fallback until the chunk came, and the element with the focus lost it).
    view! {
        <Transition fallback=|| view! { <div class="studio loading" aria-busy="true"></div> }>
            {move || Suspend::new(async move {
                let mut initial = initial.await;
                // Parsed by its chunk, loaded before hydration (`thread_store::parse`).
                let current = crate::ui::thread_store::parse::take_current(&mut initial).await;
                view! { <StudioPage initial current/> }
            })}
        </Transition>
    }
    .into_any()
}

#[component]
fn StudioPage(
    initial: InitialThreads,
    current: Option<Result<crate::wire::ThreadView, String>>,
) -> impl IntoView {
    crate::ui::theme::provide_theme();
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| {
        hydrated.set(true);
        #[cfg(feature = "hydrate")]
        crate::ui::warm::after_hydration();
    });
    let agents = agents_resource();
    let agent_header = AgentHeader::new();
    let signed_in = initial.signed_in;
    let stored_thread = crate::ui::thread_store::parse::marker(current.is_some());
    let store = ThreadStore::new(agent_header, initial, current);
    store.sync_address_bar();
    let show_state = RwSignal::new(false);
    let show_events = RwSignal::new(false);
    let panels = Panels {
        show_state,
        show_events,
        width: DockWidth::new(),
    };
    let url = Signal::derive(move || store.current().url.get());
    let set_url = Callback::new(move |u: String| store.current_untracked().url.set(u));
    let caps = AgentCaps::provide(agents, url);
    let show_reasoning = RwSignal::new(true);

    view! {
        <div
            class="studio"
            class:with-state=move || show_state.get()
            class:with-events=move || show_events.get()
            class:hide-reasoning=move || !show_reasoning.get()
        >
            <a class="skip-link" href="#composer-input" on:click=skip_to_message>
                "Skip to message"
            </a>
            {stored_thread}
            <header class="studio-header">
                <div class="brand">
                    <span class="brand-mark" aria-hidden="true">"◆"</span>
                    <h1 class="brand-name">"agui-studio"</h1>
                </div>
                <AgentPicker agents url on_change=set_url header=agent_header format=store.format/>
                <div class="header-actions">
                    <button
                        type="button"
                        class="toggle"
                        id=STATE_TOGGLE
                        aria-pressed=move || show_state.get().to_string()
                        aria-controls="state-panel"
                        on:click=move |_| show_state.update(|v| *v = !*v)
                    >
                        "State"
                    </button>
                    <button
                        type="button"
                        class="toggle"
                        id=EVENTS_TOGGLE
                        aria-pressed=move || show_events.get().to_string()
                        aria-controls="inspector-panel"
                        on:click=move |_| show_events.update(|v| *v = !*v)
                    >
                        "Events"
                    </button>
                    <ReasoningToggle caps shown=show_reasoning/>
                    <ThemeToggle/>
                    {signed_in
                        .then(|| {
                            view! {
                                // A plain form: the server ends the session and clears the cookie.
                                <form class="sign-out" method="post" action="/auth/logout">
                                    <button type="submit" class="toggle">"Sign out"</button>
                                </form>
                            }
                        })}
                    // For tests and assistive technology: whether the page is live yet.
                    <span
                        id="hydration-status"
                        class="visually-hidden"
                        data-hydrated=move || hydrated.get().to_string()
                    >
                        {move || if hydrated.get() { "Page ready" } else { "Page loading" }}
                    </span>
                </div>
            </header>
            <div class="studio-body">
                <ThreadList store/>
                {move || {
                    let thread = store.current();
                    view! { <ThreadView thread agents caps panels/> }
                }}
            </div>
        </div>
    }
    .into_any()
}

/// The ids of the panel toggles (focus returns to them when a drawer closes).
const STATE_TOGGLE: &str = "toggle-state";
const EVENTS_TOGGLE: &str = "toggle-events";

/// Which panels are open, and the dock's width: the page's, kept across threads.
#[derive(Clone, Copy)]
struct Panels {
    show_state: RwSignal<bool>,
    show_events: RwSignal<bool>,
    width: DockWidth,
}

/// The skip link moves the focus itself: the router handles the `#` link without focusing.
fn skip_to_message(ev: leptos::ev::MouseEvent) {
    ev.prevent_default();
    #[cfg(feature = "hydrate")]
    if let Some(el) = leptos::web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("composer-input"))
    {
        use leptos::wasm_bindgen::JsCast;
        if let Ok(el) = el.dyn_into::<leptos::web_sys::HtmlElement>() {
            let _ = el.focus();
        }
    }
}

/// Give the focus to the element with this id (a toggle, when its drawer closes).
fn focus_id(_id: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(el) = leptos::web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(_id))
    {
        use leptos::wasm_bindgen::JsCast;
        if let Ok(el) = el.dyn_into::<leptos::web_sys::HtmlElement>() {
            let _ = el.focus();
        }
    }
}

/// One thread: its conversation and its panels.
#[component]
fn ThreadView(
    thread: ThreadRecord,
    agents: crate::ui::agent_picker::Agents,
    caps: AgentCaps,
    panels: Panels,
) -> impl IntoView {
    let Panels {
        show_state,
        show_events,
        width,
    } = panels;
    let close_all = Callback::new(move |_| {
        let back_to = if show_events.get_untracked() {
            EVENTS_TOGGLE
        } else {
            STATE_TOGGLE
        };
        show_state.set(false);
        show_events.set(false);
        focus_id(back_to);
    });
    let close_state = Callback::new(move |_| {
        show_state.set(false);
        focus_id(STATE_TOGGLE);
    });
    let close_events = Callback::new(move |_| {
        show_events.set(false);
        focus_id(EVENTS_TOGGLE);
    });
    let agent = thread.agent;
    let history = use_history(
        agent.thread_id,
        agent.stored_thread,
        agent.events,
        show_events.into(),
    );
    let url: Signal<String> = thread.url.into();
    let attachments_allowed = Signal::derive(move || caps.attachments());
    // A message typed while an approval waits is queued, never sent past it (the agent would
    // never get an answer to the pending call): it goes once the approval is answered and the
    // run that answer starts has ended. The composer says so.
    let queued = RwSignal::new(None::<SendInput>);
    let waiting_for_you =
        move || !agent.approvals.with(Vec::is_empty) && !agent.is_running.get_untracked();
    let send = Callback::new(move |input: SendInput| {
        if waiting_for_you() {
            queued.set(Some(input));
        } else {
            agent.send.run(input);
        }
    });
    let free = move || agent.approvals.with(Vec::is_empty) && !agent.is_running.get();
    Effect::new(move |_| {
        if free() && queued.with(Option::is_some) {
            // Checked again a moment later: answering an approval starts a run, and a message
            // sent into a run in progress would be refused.
            set_timeout(
                move || {
                    if untrack(free) {
                        if let Some(input) = queued.try_update(Option::take).flatten() {
                            agent.send.run(input);
                        }
                    }
                },
                std::time::Duration::from_millis(50),
            );
        }
    });
    let chips = move |compact: bool| {
        view! {
            <Suggestions
                agents
                url
                on_pick=agent.send
                disabled=agent.is_running
                compact
            />
        }
    };
    view! {
        <main class="studio-main">
            <Chat agent empty_extra=move || chips(false)/>
            <RunStatus agent/>
            <Show when=move || !agent.messages.with(Vec::is_empty)>
                <div class="composer-suggestions">{chips(true)}</div>
            </Show>
            <Show when=move || queued.with(Option::is_some)>
                <p class="queued-note" role="status">
                    "Your message is queued: it is sent once you answer the approval above."
                    <button type="button" class="btn small" on:click=move |_| queued.set(None)>
                        "Cancel queued message"
                    </button>
                </p>
            </Show>
            <Composer
                on_send=send
                on_stop=agent.stop
                is_running=agent.is_running
                attachments_allowed
                unsent=agent.unsent
            />
        </main>
        <Show when=move || show_state.get() || show_events.get()>
            <Dock width on_close=close_all>
                <Show when=move || show_state.get()>
                    {lazy_state_panel(StatePanelProps {
                        state: agent.state.into(),
                        on_save: agent.set_state,
                        on_close: Some(close_state),
                    })}
                </Show>
                <Show when=move || show_events.get()>
                    {lazy_inspector(InspectorProps {
                        events: agent.events.into(),
                        history,
                        thread_id: agent.thread_id.into(),
                        on_open_recording: agent.open_recording,
                        on_close: Some(close_events),
                    })}
                </Show>
            </Dock>
        </Show>
    }
    .into_any()
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
        <main class="not-found">
            <h1>"Not found"</h1>
            <p>
                <a href="/">"Back to agui-studio"</a>
            </p>
        </main>
    }
    .into_any()
}

//! Which agent the thread talks to: one of the agents this server hosts (a `<select>`), any
//! AG-UI endpoint typed into the "Agent URL" field (its full URL is the POST target), or an
//! agent of a CopilotKit runtime whose URL was typed there ([`runtime`]).
//!
//! The hosted agents are a [`Resource`] the server fills from its agent registry while it
//! renders the page; the browser reads them from the serialized page, so the picker is complete
//! in the first paint and never fetches on its own.

mod runtime;
mod transport;

pub use crate::wire::{AgentSummary, ScenarioInfo};
use leptos::prelude::*;

use crate::ui::codec::ViaValue;
use runtime::RuntimeAgents;
use transport::TransportPicker;

/// The hosted agents, as the server rendered them into the page (see [`ViaValue`]).
pub type Agents = Resource<Vec<AgentSummary>, ViaValue>;

/// The agents this server hosts. Under SSR they come from the server's [`crate::wire::PageData`]
/// in context; without it (tests) the list is empty. In the browser the value comes
/// from the server-rendered page.
pub fn agents_resource() -> Agents {
    Resource::new_with_options(|| (), |_| hosted_agents(), false)
}

fn hosted_agents() -> impl std::future::Future<Output = Vec<AgentSummary>> + Send + 'static {
    #[cfg(feature = "ssr")]
    let list = use_context::<crate::wire::PageData>()
        .map(|page| page.0.agents())
        .unwrap_or_default();
    // The browser only gets here if the page carried no value (it always does when served).
    #[cfg(not(feature = "ssr"))]
    let list = Vec::new();
    async move { list }
}

/// The agent picker: a `<select>` labelled "Agent" listing the hosted agents plus "Other
/// (Agent URL)", and a text field labelled "Agent URL" holding the endpoint the thread posts
/// to. Choosing an agent fills the URL; typing a URL that is no hosted agent's selects "Other".
#[component]
pub fn AgentPicker(
    /// The hosted agents.
    agents: Agents,
    /// The endpoint the active thread posts to.
    #[prop(into)]
    url: Signal<String>,
    /// Called with the new endpoint.
    #[prop(into)]
    on_change: Callback<String>,
    /// A header for the typed Agent URL only (this server's own API uses the sign-in cookie).
    header: crate::ui::thread_store::AgentHeader,
    /// The body format runs ask for.
    format: RwSignal<crate::client::body_format::BodyFormat>,
) -> impl IntoView {
    let url_input = NodeRef::<leptos::html::Input>::new();
    let select = move |list: Vec<AgentSummary>| {
        let known = list.clone();
        let known = std::sync::Arc::new(known);
        let selected_value = {
            let known = known.clone();
            move || {
                let u = url.get();
                if known.iter().any(|a| a.url == u) {
                    u
                } else {
                    String::new()
                }
            }
        };
        let is_other = move || {
            let u = url.get();
            !known.iter().any(|a| a.url == u)
        };
        let options = list
            .into_iter()
            .map(|a| {
                let value = a.url.clone();
                let selected = move || url.get() == value;
                view! {
                    <option value=a.url.clone() selected=selected title=a.description.clone()>
                        {a.name.clone()}
                    </option>
                }
            })
            .collect_view();
        view! {
            <label class="field agent-select">
                <span class="field-label">"Agent"</span>
                <select
                    aria-label="Agent"
                    // After the user picked an option, `selected` attributes no longer move the
                    // selection; the property does.
                    prop:value=selected_value
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if v.is_empty() {
                            if let Some(el) = url_input.get_untracked() {
                                let _ = el.focus();
                                el.select();
                            }
                        } else {
                            on_change.run(v);
                        }
                    }
                >
                    {options}
                    <option value="" selected=is_other>"Other (Agent URL)"</option>
                </select>
            </label>
        }
    };
    let fallback = move || select(Vec::new());
    view! {
        <div class="agent-picker">
            <Suspense fallback=fallback>
                {move || Suspend::new(async move { select(agents.await) })}
            </Suspense>
            <label class="field agent-url">
                <span class="field-label">"Agent URL"</span>
                <input
                    node_ref=url_input
                    type="text"
                    inputmode="url"
                    spellcheck="false"
                    autocomplete="off"
                    aria-label="Agent URL"
                    placeholder="https://example.com/agent"
                    value=move || url.get()
                    prop:value=move || url.get()
                    on:input=move |ev| on_change.run(event_target_value(&ev))
                />
            </label>
            <RuntimeAgents url on_change header/>
            <details class="agent-auth">
                <summary>"Connection"</summary>
                // In a form, where browsers expect a password field; nothing is submitted.
                <form class="auth-form" on:submit=|ev| ev.prevent_default()>
                    <label class="field">
                        <span class="field-label">"Header for this Agent URL"</span>
                        <input
                            type="password"
                            autocomplete="off"
                            aria-label="Header for this Agent URL"
                            aria-describedby="agent-header-scope"
                            placeholder="Authorization: Bearer … (or just the token)"
                            prop:value=move || header.value.get()
                            on:input=move |ev| {
                                header.value.set(event_target_value(&ev).trim().to_string());
                                // Bound to the URL it was typed for: never sent elsewhere.
                                header.url.set(url.get_untracked());
                            }
                        />
                    </label>
                    <p id="agent-header-scope" class="field-hint">
                        {move || header_scope(&header.value.get(), &header.url.get(), &url.get())}
                    </p>
                    <TransportPicker format/>
                </form>
            </details>
        </div>
    }
    .into_any()
}

/// Where the typed header goes, in words.
fn header_scope(value: &str, for_url: &str, url: &str) -> String {
    if value.is_empty() {
        "Sent only to the Agent URL it is typed for.".into()
    } else if crate::ui::thread_store::is_local(url) {
        "Not sent: this server's own agents use your sign-in.".into()
    } else if for_url == url {
        format!("Sent only to {url}.")
    } else {
        format!("Typed for {for_url}; not sent to this URL.")
    }
}

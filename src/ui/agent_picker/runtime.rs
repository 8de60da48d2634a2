//! A CopilotKit runtime as the Agent URL: "Load agents" asks the URL's runtime for its agents
//! (`GET {base}/info`, see [`crate::client::copilotkit`]); if it answers CopilotKit's shape, a
//! "CopilotKit agent" select lists them and picking one makes its run endpoint
//! (`{base}/agent/{id}/run`) the Agent URL — from then on a run is an ordinary AG-UI run.
//!
//! Asked on a click only, never as the user types: a request to a half-typed host, or a 404
//! from an AG-UI endpoint that has no `/info`, would be noise.

use leptos::prelude::*;

use crate::client::copilotkit::CopilotRuntime;
use crate::ui::thread_store::AgentHeader;

/// The "Load agents" button, the select of the runtime's agents once loaded, and a status line.
#[component]
pub fn RuntimeAgents(
    /// The Agent URL.
    #[prop(into)]
    url: Signal<String>,
    /// Called with a runtime agent's run endpoint when one is picked.
    #[prop(into)]
    on_change: Callback<String>,
    /// The header typed for the Agent URL (sent with the `info` request when it is for it).
    header: AgentHeader,
) -> impl IntoView {
    let runtime: RwSignal<Option<CopilotRuntime>> = RwSignal::new(None);
    let status = RwSignal::new(String::new());
    let loading = RwSignal::new(false);
    // A hosted AG-UI agent is no runtime; anything else may be.
    let offered = move || !url.get().starts_with("/api/agents/");
    // Only the last click's answer counts, and only while the Agent URL is still the one it was
    // asked for: a slow runtime never overwrites a URL typed since.
    let asked = StoredValue::new(0u64);
    let load = move |_| {
        let asked_for = url.get_untracked();
        let Some(base) = crate::client::copilotkit::runtime_base(&asked_for) else {
            status.set("Type the runtime's URL first.".into());
            return;
        };
        let _headers = header.for_url(&asked_for);
        asked.update_value(|n| *n += 1);
        let _ticket = asked.get_value();
        loading.set(true);
        status.set(format!("Asking {base}/info…"));
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let answer = match ask(base.clone(), _headers).await {
                Ok(asking) => asking.await,
                Err(_) => Err(crate::client::chunk::unfetched(
                    "The agents cannot be loaded",
                    crate::client::chunk::RELOAD_TO_RETRY,
                )),
            };
            if asked.get_value() != _ticket {
                return;
            }
            loading.set(false);
            if url.get_untracked() != asked_for {
                status.set(format!(
                    "The answer of {base}/info came after the Agent URL changed: not applied."
                ));
                return;
            }
            match answer {
                Ok(rt) if rt.agents.is_empty() => {
                    status.set(format!(
                        "The CopilotKit runtime at {base} serves no agents."
                    ));
                    runtime.set(None);
                }
                Ok(rt) => {
                    status.set(format!(
                        "CopilotKit runtime at {base}: {} agent(s).",
                        rt.agents.len()
                    ));
                    let current = url.get_untracked();
                    if rt.agent_of(&current).is_none() {
                        on_change.run(rt.run_url(&rt.agents[0].id));
                    }
                    runtime.set(Some(rt));
                }
                Err(why) => {
                    status.set(why);
                    runtime.set(None);
                }
            }
        });
    };
    let options = move || {
        runtime.with(|rt| {
            rt.as_ref().map(|rt| {
                rt.agents
                    .iter()
                    .map(|a| {
                        let value = rt.run_url(&a.id);
                        view! {
                            <option value=value title=a.description.clone()>
                                {a.id.clone()}
                            </option>
                        }
                    })
                    .collect_view()
            })
        })
    };
    // The select shows while the Agent URL is one of the loaded runtime's agents.
    let picked = move || {
        let u = url.get();
        runtime.with(|rt| rt.as_ref().is_some_and(|rt| rt.agent_of(&u).is_some()))
    };
    view! {
        <Show when=offered>
            <div class="runtime-agents">
                <button
                    type="button"
                    class="toggle"
                    aria-label="Load CopilotKit agents"
                    title="Ask this URL's CopilotKit runtime for its agents ({url}/info)"
                    disabled=move || loading.get()
                    on:click=load
                >
                    "Load agents"
                </button>
                <Show when=picked>
                    <label class="field">
                        <span class="field-label">"CopilotKit agent"</span>
                        <select
                            aria-label="CopilotKit agent"
                            prop:value=move || url.get()
                            on:change=move |ev| on_change.run(event_target_value(&ev))
                        >
                            {options}
                        </select>
                    </label>
                </Show>
                <p class="field-hint" role="status">{move || status.get()}</p>
            </div>
        </Show>
    }
}

#[cfg(feature = "hydrate")]
type Asking = std::pin::Pin<Box<dyn std::future::Future<Output = Result<CopilotRuntime, String>>>>;

crate::client::chunk::split_fn!(
    runtime_info,
    __preload_runtime_info,
    /// [`ask_now`], from its chunk: the request and the parse of its answer are fetched the
    /// first time "Load agents" is pressed.
    #[cfg(feature = "hydrate")]
    fn ask(base: String, headers: Vec<(String, String)>) -> Asking {
        Box::pin(ask_now(base, headers))
    }
);

/// Asks the runtime at `base` for its agents (`GET {base}/info`, at most
/// [`MAX_INFO_BYTES`](crate::client::copilotkit::MAX_INFO_BYTES)): the runtime, or the status
/// line that says why not.
#[cfg(feature = "hydrate")]
async fn ask_now(base: String, headers: Vec<(String, String)>) -> Result<CopilotRuntime, String> {
    use crate::client::copilotkit::{parse_info, MAX_INFO_BYTES};
    let info = crate::client::transport::get_json_within(
        &format!("{base}/info"),
        &headers,
        MAX_INFO_BYTES,
    )
    .await;
    match info {
        Ok(v) => parse_info(&base, &v)
            .ok_or_else(|| format!("{base}/info is not a CopilotKit runtime's answer.")),
        Err(e) => {
            // An error page's body can be long: its start says enough.
            let why: String = e.to_string().chars().take(160).collect();
            Err(format!("No CopilotKit runtime at {base} ({why})."))
        }
    }
}

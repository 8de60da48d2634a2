//! Suggestion chips: one per scenario of the chosen agent (the demo agent publishes its
//! scenarios). A chip starts its scenario: the message text is the scenario's name and
//! `forwardedProps.scenario` names it too.

use leptos::prelude::*;
use serde_json::json;

use crate::client::session::SendInput;
use crate::ui::agent_picker::{AgentSummary, ScenarioInfo};

/// What a chip sends.
pub fn scenario_input(name: &str) -> SendInput {
    SendInput {
        text: name.to_string(),
        attachments: Vec::new(),
        forwarded_props: Some(json!({ "scenario": name })),
    }
}

/// The scenarios of the agent at `url`, if it is one of the hosted agents.
pub fn scenarios_for(agents: &[AgentSummary], url: &str) -> Vec<ScenarioInfo> {
    agents
        .iter()
        .find(|a| a.url == url)
        .map(|a| a.scenarios.clone())
        .unwrap_or_default()
}

/// A group of chips (`role="group"`, accessible name "Suggestions"); each chip is a button named
/// by its scenario (e.g. "hitl") whose description is its `title`. Renders nothing when the
/// agent has no scenarios (a foreign agent).
#[component]
pub fn Suggestions(
    /// The hosted agents (read inside a `Suspense`, so server and browser render the same).
    agents: crate::ui::agent_picker::Agents,
    /// The endpoint of the thread's agent.
    #[prop(into)]
    url: Signal<String>,
    /// Called with the input a chip sends.
    #[prop(into)]
    on_pick: Callback<SendInput>,
    /// Disables the chips (e.g. while a run streams).
    #[prop(optional, into)]
    disabled: Signal<bool>,
    /// A single scrolling row with names only, instead of the grid of cards with descriptions.
    #[prop(optional)]
    compact: bool,
) -> impl IntoView {
    let chips = move |list: Vec<ScenarioInfo>| {
        (!list.is_empty()).then(|| {
            let chips = list
                .into_iter()
                .map(|s| {
                    let name = s.name.clone();
                    view! {
                        <button
                            type="button"
                            class="chip"
                            title=s.description.clone()
                            disabled=move || disabled.get()
                            on:click=move |_| on_pick.run(scenario_input(&name))
                        >
                            <span class="chip-name">{s.name.clone()}</span>
                            {(!compact)
                                .then(|| {
                                    view! {
                                        <span class="chip-desc" aria-hidden="true">
                                            {s.description.clone()}
                                        </span>
                                    }
                                })}
                        </button>
                    }
                })
                .collect_view();
            view! {
                <div
                    class="suggestions"
                    class:compact=compact
                    role="group"
                    aria-label="Suggestions"
                >
                    {chips}
                </div>
            }
        })
    };
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let list = agents.await;
                move || chips(scenarios_for(&list, &url.get()))
            })}
        </Suspense>
    }
    .into_any()
}

//! The shared-state panel: the agent's state as a live JSON tree; "Edit" turns it into a JSON
//! textarea, "Save" validates it and hands it to the session (the next run carries it).

use leptos::prelude::*;
use serde_json::Value;

use crate::ui::dock::CloseButton;
use crate::ui::render_hints::JsonView;
use crate::ui::util::pretty_value;

const CLOSE: &str = "Close shared state";

/// The shared-state panel, its code loaded on demand (a WASM chunk of its own in a
/// `cargo leptos build --split`) the first time it opens. It starts closed, so the server never
/// renders it and hydration never waits for it. Takes [`StatePanel`]'s props.
pub fn lazy_state_panel(props: StatePanelProps) -> impl IntoView {
    crate::ui::lazy::panel("The shared state", state_panel_view(props))
}

crate::ui::lazy::split_view!(
    state_panel_view,
    __preload_state_panel_view,
    fn state_panel_view(props: StatePanelProps) {
        StatePanel(props).into_any()
    }
);

/// The shared state (`<aside aria-label="Shared state">`).
#[component]
pub fn StatePanel(
    /// The agent's state.
    #[prop(into)]
    state: Signal<Value>,
    /// Called with the edited state.
    #[prop(into)]
    on_save: Callback<Value>,
    /// Closes the panel (its close button).
    #[prop(optional)]
    on_close: Option<Callback<()>>,
) -> impl IntoView {
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let start_edit = move |_| {
        draft.set(state.with_untracked(pretty_value));
        error.set(None);
        editing.set(true);
    };
    let save = move |_| match serde_json::from_str::<Value>(&draft.get_untracked()) {
        Ok(v) => {
            error.set(None);
            on_save.run(v);
            editing.set(false);
        }
        Err(e) => error.set(Some(format!("Not valid JSON: {e}"))),
    };
    let empty = move || state.with(|s| s.is_null() || s.as_object().is_some_and(|o| o.is_empty()));
    view! {
        <aside class="panel state-panel" id="state-panel" aria-label="Shared state">
            <div class="panel-head">
                <h2 class="panel-title">"Shared state"</h2>
                <div class="panel-actions">
                    <Show
                        when=move || editing.get()
                        fallback=move || {
                            view! {
                                <button type="button" class="btn small" on:click=start_edit>
                                    "Edit"
                                </button>
                            }
                        }
                    >
                        <button type="button" class="btn small primary" on:click=save>
                            "Save"
                        </button>
                        <button
                            type="button"
                            class="btn small"
                            on:click=move |_| {
                                editing.set(false);
                                error.set(None);
                            }
                        >
                            "Cancel"
                        </button>
                    </Show>
                    {on_close.map(|on_close| view! { <CloseButton label=CLOSE on_close/> })}
                </div>
            </div>
            <div class="panel-body">
                <Show
                    when=move || editing.get()
                    fallback=move || {
                        view! {
                            <Show
                                when=move || !empty()
                                fallback=|| {
                                    view! {
                                        <p class="muted">
                                            "No state yet. Agents share state with STATE_SNAPSHOT and STATE_DELTA events; you can also set it here and the next run carries it."
                                        </p>
                                    }
                                }
                            >
                                <JsonView value=state collapsed_depth=3/>
                            </Show>
                        }
                    }
                >
                    <label class="field">
                        <span class="field-label">"State (JSON)"</span>
                        <textarea
                            class="code-input state-editor"
                            rows="14"
                            spellcheck="false"
                            prop:value=move || draft.get()
                            on:input=move |ev| draft.set(event_target_value(&ev))
                        ></textarea>
                    </label>
                    <p class="field-error" role="alert" hidden=move || error.with(Option::is_none)>
                        {move || error.get()}
                    </p>
                </Show>
            </div>
        </aside>
    }
    .into_any()
}

//! `SchemaEditor`: a value edited through a form generated from its JSON Schema (the model is
//! [`model`]: switches, selects, inputs, groups, lists, checklists; JSON where a form does not
//! fit), with raw JSON one toggle away. Approvals edit a tool call's arguments with it and
//! interrupts answer their `responseSchema` with it.
//!
//! Only the view on screen is sent: switching from the form to JSON writes the form's value into
//! the JSON, switching back reads the JSON into the form (refused, with the reason, while the
//! JSON does not parse). Every input is labelled (`<label for>`); errors are in the error colour,
//! named by `aria-describedby`, and summed up in a `role="alert"` when sending is refused. No
//! text of the schema or value becomes HTML: labels, help and options are text nodes.

pub mod check;
pub mod fields;
pub mod labels;
pub mod model;
pub mod schema;
pub mod state;
pub mod values;

use leptos::prelude::*;
use serde_json::Value;

use crate::ui::lazy::{on_demand, split_view};
use crate::ui::util::pretty_value;
use fields::{id_token, node_view};
use model::build;
pub use state::EditorState;

/// The form for an [`EditorState`], with the "Advanced: edit as JSON" toggle. Its view code is a
/// WASM chunk of its own, loaded the first time a form is shown (see [`crate::ui::lazy`]); the
/// state, its checks and its value stay in the page's own code.
#[component]
pub fn SchemaEditor(
    state: EditorState,
    /// Prefix of the inputs' ids: unique on the page.
    #[prop(into)]
    id_prefix: String,
    /// The label of the JSON text area (e.g. "Arguments (JSON)").
    #[prop(into)]
    json_label: String,
) -> impl IntoView {
    on_demand(
        MARKER,
        "This form",
        editor_body(state, id_prefix, json_label),
    )
}

/// Loads the editor's chunk if the server rendered a form into this page; called before
/// hydration (see [`crate::ui::lazy`]).
#[cfg(feature = "hydrate")]
pub async fn preload_rendered() {
    crate::ui::lazy::load_if_rendered(MARKER, __preload_editor_body).await;
}

/// The marker of the editor's chunk (see [`crate::ui::lazy`]).
const MARKER: &str = "schema-editor";

split_view!(
    editor_body,
    __preload_editor_body,
    fn editor_body(state: EditorState, id_prefix: String, json_label: String) {
        let st = state;
        let prefix = id_token(&id_prefix);
        let json_id = format!("{prefix}-json");
        let form = {
            let prefix = prefix.clone();
            move || {
                st.shape.track();
                let node = st
                    .schema
                    .with_value(|s| st.draft.with_untracked(|v| build(s, v)));
                node_view(&node, st, &prefix, true)
            }
        };
        let toggle = move |_| {
            if st.json_mode.get_untracked() {
                match serde_json::from_str::<Value>(&st.json_text.get_untracked()) {
                    Ok(v) => {
                        st.draft.set(v);
                        st.alert.set(None);
                        st.reshape();
                        st.json_mode.set(false);
                    }
                    Err(e) => st.alert.set(Some(format!(
                        "Not valid JSON: {e}. Fix it to go back to the form."
                    ))),
                }
            } else {
                st.json_text.set(st.draft.with_untracked(pretty_value));
                st.alert.set(None);
                st.json_mode.set(true);
            }
        };
        view! {
            <div class="schema-editor">
                <Show when=move || !st.json_mode.get()>
                    <div class="sf-form">{form.clone()}</div>
                </Show>
                <Show when=move || st.json_mode.get()>
                    <label class="field sf-json" for=json_id.clone()>
                        <span class="field-label">{json_label.clone()}</span>
                        <textarea
                            id=json_id.clone()
                            class="code-input"
                            rows="10"
                            spellcheck="false"
                            prop:value=move || st.json_text.get()
                            on:input=move |ev| st.json_text.set(event_target_value(&ev))
                        ></textarea>
                    </label>
                </Show>
                {move || st.alert.get().map(|a| view! { <p class="sf-alert" role="alert">{a}</p> })}
                <div class="sf-mode">
                    <button
                        type="button"
                        class="toggle small"
                        aria-pressed=move || st.json_mode.get().to_string()
                        on:click=toggle
                    >
                        "Advanced: edit as JSON"
                    </button>
                    <span class="sf-mode-note">
                        "What is on screen is sent; switching carries your edits across."
                    </span>
                </div>
            </div>
        }
        .into_any()
    }
);

#[cfg(test)]
mod tests;

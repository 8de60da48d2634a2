//! Human in the loop: a card for something waiting on the user — a frontend tool the run ended
//! on, an in-stream `request_approval`, or an interrupt. "Approve", "Reject", and "Edit
//! arguments": a form generated from the arguments' JSON Schema (inferred from the arguments
//! when the tool has none; raw JSON one toggle away), then "Approve with edits". An interrupt
//! whose response schema asks for more than a yes/no is answered with the same kind of form.
//! The session's callbacks send each answer the way its style requires.

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::client::session::{Approval, ApprovalKind};
use crate::ui::agent_caps::approval_edits_allowed;
use crate::ui::render_hints::JsonView;
use crate::ui::schema_form::values::{apply_defaults, infer_schema};
use crate::ui::schema_form::{EditorState, SchemaEditor};

/// Properties of a response schema that only say yes/no (with optional edits or a comment):
/// such an interrupt is answered with the Approve/Reject buttons, not a form.
const APPROVAL_KEYS: [&str; 6] = [
    "approved",
    "editedArgs",
    "edited_args",
    "reason",
    "comment",
    "feedback",
];

/// Whether a response schema is a plain approval (`approved` plus at most edits or a comment).
pub fn is_approval_schema(schema: &Value) -> bool {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    props.contains_key("approved") && props.keys().all(|k| APPROVAL_KEYS.contains(&k.as_str()))
}

/// An approval's card, its code a chunk of its own (with the schema form's model and the
/// arguments' editor: a page that is never asked for an approval needs none of it), fetched
/// with a run's code while the page is idle (see [`crate::ui::lazy`]). The server never renders
/// an approval: one comes with a run, or with a run the page follows after a reload.
pub fn on_demand_approval(
    approval: Approval,
    on_approve: Callback<(String, Option<Value>)>,
    on_reject: Callback<String>,
    on_answer: Callback<(String, Value)>,
) -> AnyView {
    crate::ui::lazy::on_demand(
        "approval",
        "This approval",
        approval_view(approval, on_approve, on_reject, on_answer),
    )
}

crate::ui::lazy::split_view!(
    approval_view,
    __preload_approval_view,
    fn approval_view(
        approval: Approval,
        on_approve: Callback<(String, Option<Value>)>,
        on_reject: Callback<String>,
        on_answer: Callback<(String, Value)>,
    ) {
        view! { <ApprovalCard approval on_approve on_reject on_answer/> }.into_any()
    }
);

/// Loads the approvals' chunk (while the page is idle after hydration, with a run's code); a
/// failure is left to the approval that needs it.
#[cfg(feature = "hydrate")]
pub async fn preload() {
    let _ = __preload_approval_view().await;
}

/// One approval (`role="group"`, accessible name "Approval: <tool>").
#[component]
pub fn ApprovalCard(
    /// What waits for the user.
    approval: Approval,
    /// Approve, with edited arguments when the user edited them.
    #[prop(into)]
    on_approve: Callback<(String, Option<Value>)>,
    /// Reject.
    #[prop(into)]
    on_reject: Callback<String>,
    /// Answer an interrupt with the payload of its form.
    #[prop(into)]
    on_answer: Callback<(String, Value)>,
) -> impl IntoView {
    let Approval {
        id,
        kind,
        tool_call_id,
        tool_name,
        args,
        message,
        risk,
        response_schema,
        args_schema,
    } = approval;
    let form_schema = response_schema.filter(|s| !is_approval_schema(s));
    let editable = matches!(args, Value::Object(_) | Value::Array(_))
        && form_schema.is_none()
        && approval_edits_allowed(kind == ApprovalKind::Interrupt);
    let editing = RwSignal::new(false);
    let token = id.replace(|c: char| !c.is_ascii_alphanumeric(), "-");
    // Set once answered, so a second click does nothing; cleared after a while in case the
    // answer did not go through (the error banner says why).
    let sent = RwSignal::new(false);
    let mark_sent = move || {
        sent.set(true);
        set_timeout(move || sent.set(false), std::time::Duration::from_secs(5));
    };

    let heading = match kind {
        ApprovalKind::FrontendTool => "Your app is asked to run",
        ApprovalKind::InStream => "The agent asks for approval",
        ApprovalKind::Interrupt => "The run is paused for you",
    };
    let text = message.unwrap_or_else(|| match kind {
        ApprovalKind::FrontendTool => {
            format!("The agent called {tool_name}. Approve to answer it with these arguments.")
        }
        _ => format!("Allow {tool_name}?"),
    });
    let risk_view = risk.map(|r| {
        let class = format!("badge risk risk-{}", r.to_ascii_lowercase());
        view! { <span class=class>{format!("Risk: {r}")}</span> }
    });
    // A call in the transcript already shows its arguments in its card.
    let args_view = (!args.is_null() && tool_call_id.is_none()).then(|| {
        let value = Signal::stored(args.clone());
        view! {
            <div class="approval-args" hidden=move || editing.get()>
                <JsonView value collapsed_depth=2/>
            </div>
        }
    });

    let editor = editable.then(|| {
        let schema = args_schema.unwrap_or_else(|| infer_schema(&args));
        EditorState::new(schema, args.clone())
    });
    let editor_view = editor.map(|state| {
        let prefix = format!("approval-edit-{token}");
        view! {
            <Show when=move || editing.get()>
                <div class="approval-edit">
                    <SchemaEditor state id_prefix=prefix.clone() json_label="Arguments (JSON)"/>
                </div>
            </Show>
        }
    });

    let approve = {
        let id = id.clone();
        move |_| {
            if sent.get_untracked() {
                return;
            }
            match editor.filter(|_| editing.get_untracked()) {
                Some(state) => {
                    if let Some(v) = state.value() {
                        mark_sent();
                        // Unchanged arguments are a plain approval.
                        on_approve.run((id.clone(), (v != args).then_some(v)));
                    }
                }
                None => {
                    mark_sent();
                    on_approve.run((id.clone(), None));
                }
            }
        }
    };
    let reject = {
        let id = id.clone();
        move |_| {
            if !sent.get_untracked() {
                mark_sent();
                on_reject.run(id.clone());
            }
        }
    };
    let form = form_schema.map(|schema| {
        let mut start = json!({});
        apply_defaults(&schema, &mut start, 0);
        let state = EditorState::new(schema, start);
        let id = id.clone();
        let prefix = format!("interrupt-{token}");
        let submit = move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            if sent.get_untracked() {
                return;
            }
            if let Some(v) = state.value() {
                mark_sent();
                on_answer.run((id.clone(), v));
            }
        };
        view! {
            <form class="approval-form" novalidate=true on:submit=submit>
                <SchemaEditor state id_prefix=prefix json_label="Answer (JSON)"/>
                <button type="submit" class="btn primary" disabled=move || sent.get()>
                    "Submit"
                </button>
            </form>
        }
    });
    let has_form = form.is_some();
    let label = format!("Approval: {tool_name}");

    // Keyboard users reach a new approval at once: it takes the focus when it appears, unless
    // the user is typing something (then Tab order is theirs).
    let card = NodeRef::<leptos::html::Div>::new();
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        if let Some(el) = card.get() {
            if !typing_elsewhere() {
                let _ = el.focus();
            }
        }
    });

    view! {
        <div
            class="approval"
            role="group"
            aria-label=label
            data-kind=format!("{kind:?}")
            tabindex="-1"
            node_ref=card
        >
            <div class="approval-head">
                <span class="approval-icon" aria-hidden="true">"!"</span>
                <span class="approval-heading">{heading}</span>
                <code class="tool-name">{tool_name.clone()}</code>
                {risk_view}
            </div>
            <p class="approval-message">{text}</p>
            {args_view}
            {editor_view}
            {form}
            <div class="approval-actions">
                {(!has_form)
                    .then(|| {
                        view! {
                            <button
                                type="button"
                                class="btn primary"
                                disabled=move || sent.get()
                                on:click=approve.clone()
                            >
                                {move || if editing.get() { "Approve with edits" } else { "Approve" }}
                            </button>
                        }
                    })}
                <button
                    type="button"
                    class="btn danger"
                    disabled=move || sent.get()
                    on:click=reject
                >
                    "Reject"
                </button>
                {editable
                    .then(|| {
                        view! {
                            <button
                                type="button"
                                class="btn"
                                aria-expanded=move || editing.get().to_string()
                                disabled=move || sent.get()
                                on:click=move |_| editing.update(|e| *e = !*e)
                            >
                                "Edit arguments"
                            </button>
                        }
                    })}
                <span class="approval-sent" role="status">
                    {move || sent.get().then_some("Sending your answer…")}
                </span>
            </div>
        </div>
    }
    .into_any()
}

/// Whether the focus is in a text field that holds something the user typed.
#[cfg(feature = "hydrate")]
fn typing_elsewhere() -> bool {
    use leptos::wasm_bindgen::JsCast;
    let Some(active) = leptos::web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
    else {
        return false;
    };
    if let Some(t) = active.dyn_ref::<leptos::web_sys::HtmlTextAreaElement>() {
        return !t.value().is_empty();
    }
    if let Some(i) = active.dyn_ref::<leptos::web_sys::HtmlInputElement>() {
        return !i.value().is_empty();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yes_no_schemas_are_approvals_and_others_are_forms() {
        assert!(is_approval_schema(
            &json!({"type": "object", "properties": {
            "approved": {"type": "boolean"}, "editedArgs": {"type": "object"}}})
        ));
        assert!(!is_approval_schema(
            &json!({"type": "object", "properties": {
            "date": {"type": "string", "format": "date"}}})
        ));
        assert!(!is_approval_schema(&json!({"type": "object"})));
    }
}

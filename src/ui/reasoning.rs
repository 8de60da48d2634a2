//! A reasoning message as a collapsible panel: open while it streams ("Thinking…"), folded when
//! it ends ("Thought for 3 s") unless the user opened or closed it themselves. Encrypted
//! reasoning is shown as a marker and never decoded.

use leptos::prelude::*;

use crate::protocol::types::Message as Msg;
use crate::ui::markdown::Markdown;
use crate::ui::util::now_ms;

/// The summary line of a reasoning panel.
pub fn reasoning_title(streaming: bool, encrypted_only: bool, took_ms: Option<f64>) -> String {
    if encrypted_only {
        return "Encrypted reasoning (not shown)".into();
    }
    if streaming {
        return "Thinking…".into();
    }
    match took_ms {
        Some(ms) => format!("Thought for {} s", ((ms / 1000.0).round() as u64).max(1)),
        None => "Reasoning".into(),
    }
}

/// A reasoning message (`<details class="reasoning">`).
#[component]
pub fn Reasoning(
    /// The reasoning message.
    #[prop(into)]
    message: Signal<Msg>,
    /// Whether it is streaming now.
    #[prop(optional, into)]
    streaming: Signal<bool>,
) -> impl IntoView {
    let text = Memo::new(move |_| {
        message.with(|m| match m {
            Msg::Reasoning(r) => r.content.clone(),
            _ => String::new(),
        })
    });
    let encrypted = Memo::new(move |_| {
        message.with(|m| matches!(m, Msg::Reasoning(r) if r.encrypted_value.is_some()))
    });
    let encrypted_only = move || encrypted.get() && text.with(|t| t.trim().is_empty());

    // Timing: from when this panel first saw it streaming to when it stopped.
    let started = RwSignal::new(None::<f64>);
    let ended = RwSignal::new(None::<f64>);
    // The panel's open state as the DOM has it; `auto` until the user toggles it.
    let open = RwSignal::new(false);
    let auto = RwSignal::new(true);
    Effect::new(move |_| {
        let s = streaming.get();
        if s {
            if started.get_untracked().is_none() {
                started.set(Some(now_ms()));
            }
            ended.set(None);
        } else if started.get_untracked().is_some() && ended.get_untracked().is_none() {
            ended.set(Some(now_ms()));
        }
        if auto.get_untracked() {
            open.set(s);
        }
    });
    let took = move || match (started.get(), ended.get()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let title = move || reasoning_title(streaming.get(), encrypted_only(), took());
    let on_toggle = crate::ui::util::on_user_toggle(open, auto);

    view! {
        <details
            class="reasoning"
            class:streaming=move || streaming.get()
            data-role="reasoning"
            open=move || open.get()
            on:toggle=on_toggle
        >
            <summary class="reasoning-summary">
                <span class="reasoning-icon" aria-hidden="true">"✦"</span>
                <span class="reasoning-title">{title}</span>
            </summary>
            <div class="reasoning-body">
                <Show when=move || !text.with(|t| t.trim().is_empty())>
                    <Markdown text=text/>
                </Show>
                <Show when=move || encrypted.get() && !encrypted_only()>
                    <p class="reasoning-encrypted">"Encrypted reasoning (not shown)"</p>
                </Show>
                <Show when=encrypted_only>
                    <p class="reasoning-encrypted">
                        "The agent sent its reasoning encrypted; it is kept for the next run and never decoded here."
                    </p>
                </Show>
            </div>
        </details>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles() {
        assert_eq!(reasoning_title(true, false, None), "Thinking…");
        assert_eq!(
            reasoning_title(false, false, Some(2600.0)),
            "Thought for 3 s"
        );
        assert_eq!(
            reasoning_title(false, false, Some(100.0)),
            "Thought for 1 s"
        );
        assert_eq!(
            reasoning_title(false, true, None),
            "Encrypted reasoning (not shown)"
        );
        assert_eq!(reasoning_title(false, false, None), "Reasoning");
    }
}

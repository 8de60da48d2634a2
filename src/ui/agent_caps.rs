//! What the selected agent declares — its 1.1 `AgentCapabilities`, as `GET /api/agents` lists
//! them (a proxied agent's are what its upstream publishes) — for the views that adapt to it:
//! the attach button, an approval's "Edit arguments", the "Reasoning" toggle.
//!
//! An agent typed by URL declares nothing, and an omitted capability is unknown, never
//! unsupported (the schema says so): every affordance stays unless the agent declares it off.

use leptos::prelude::*;
use serde_json::Value;

use crate::protocol::capabilities as caps;

/// The `localStorage` key of the user's "Reasoning" pick (`"shown"` or `"hidden"`).
pub const REASONING_KEY: &str = "agui-studio-reasoning";

/// The capabilities of the agent the current thread talks to (`Value::Null` when unknown).
/// Provided as context by the studio page; read with [`AgentCaps::current`].
#[derive(Clone, Copy)]
pub struct AgentCaps(Signal<Value>);

impl AgentCaps {
    /// The capabilities of the listed agent whose endpoint is `url`, and provides them as
    /// context to the views below.
    pub fn provide(agents: crate::ui::agent_picker::Agents, url: Signal<String>) -> Self {
        let doc = Memo::new(move |_| {
            let u = url.get();
            agents.with(|list| {
                list.as_ref()
                    .and_then(|l| l.iter().find(|a| a.url == u))
                    .map(|a| a.capabilities.clone())
                    .unwrap_or(Value::Null)
            })
        });
        let me = Self(doc.into());
        provide_context(me);
        me
    }

    /// Fixed capabilities (for tests and for views outside the studio page).
    pub fn fixed(doc: Value) -> Self {
        Self(Signal::stored(doc))
    }

    /// The page's, if a studio page provided them (else everything is unknown, and allowed).
    pub fn current() -> Option<Self> {
        use_context::<Self>()
    }

    /// Whether the user may attach media (false only when no input kind is accepted).
    pub fn attachments(self) -> bool {
        self.0.with(caps::accepts_attachments)
    }

    /// Whether the agent may show reasoning (the "Reasoning" toggle is offered).
    pub fn reasons(self) -> bool {
        self.0.with(caps::reasons)
    }

    /// Whether the agent declares its reasoning encrypted (only markers can be shown).
    pub fn encrypted_reasoning(self) -> bool {
        self.0.with(caps::encrypted_reasoning)
    }
}

/// Whether an approval may offer "Edit arguments": interrupts only when the page's agent does
/// not declare `humanInTheLoop.approveWithEdits: false` (the edits would be dropped); the
/// studio's own approvals (frontend tools, in-stream approvals) always take edits.
pub fn approval_edits_allowed(interrupt: bool) -> bool {
    !interrupt || AgentCaps::current().is_none_or(|c| c.0.with_untracked(caps::approves_with_edits))
}

/// The "Reasoning" toggle of the header: shows or hides every reasoning panel of the
/// conversation (the studio's `hide-reasoning` class). Offered only while the agent may reason;
/// the pick is remembered in `localStorage` under [`REASONING_KEY`].
#[component]
pub fn ReasoningToggle(
    /// The page's capabilities.
    caps: AgentCaps,
    /// Whether reasoning panels are shown.
    shown: RwSignal<bool>,
) -> impl IntoView {
    // Read after hydration: the server renders the default, so both agree on the first paint.
    Effect::new(move |_| {
        if let Some(pick) = stored_pick() {
            shown.set(pick);
        }
    });
    let toggle = move |_| {
        let next = !shown.get_untracked();
        shown.set(next);
        store_pick(next);
    };
    let title = move || match (shown.get(), caps.encrypted_reasoning()) {
        (true, true) => "Hide reasoning (this agent encrypts it: only markers are shown)",
        (true, false) => "Hide the agent's reasoning",
        (false, _) => "Show the agent's reasoning",
    };
    view! {
        <Show when=move || caps.reasons()>
            <button
                type="button"
                class="toggle"
                aria-pressed=move || shown.get().to_string()
                title=title
                on:click=toggle
            >
                "Reasoning"
            </button>
        </Show>
    }
    .into_any()
}

/// The stored pick, if any (browser only).
fn stored_pick() -> Option<bool> {
    #[cfg(feature = "hydrate")]
    {
        let storage = window().local_storage().ok().flatten()?;
        match storage.get_item(REASONING_KEY).ok().flatten().as_deref() {
            Some("shown") => Some(true),
            Some("hidden") => Some(false),
            _ => None,
        }
    }
    #[cfg(not(feature = "hydrate"))]
    None
}

/// Remembers the pick (browser only).
fn store_pick(_shown: bool) {
    #[cfg(feature = "hydrate")]
    if let Ok(Some(storage)) = window().local_storage() {
        let _ = storage.set_item(REASONING_KEY, if _shown { "shown" } else { "hidden" });
    }
}

//! The "Transport" choice: the body format runs ask for (SSE or the protobuf binding), kept in
//! `localStorage` so it survives a reload. The server answers in the format it speaks; the
//! choice changes only what is asked for.

use leptos::prelude::*;

use crate::client::body_format::BodyFormat;

/// A `<select>` labelled "Transport".
#[component]
pub fn TransportPicker(format: RwSignal<BodyFormat>) -> impl IntoView {
    // The stored pick is read once hydrated (the server cannot know it).
    Effect::new(move |_| {
        if let Some(stored) = load() {
            format.set(stored);
        }
    });
    view! {
        <label class="field">
            <span class="field-label">"Transport"</span>
            <select
                aria-label="Transport"
                aria-describedby="transport-hint"
                prop:value=move || format.get().as_str()
                on:change=move |ev| {
                    if let Some(f) = BodyFormat::parse(&event_target_value(&ev)) {
                        format.set(f);
                        save(f);
                    }
                }
            >
                <option value="protobuf">"Protobuf (binary, default)"</option>
                <option value="sse">"SSE (text/event-stream)"</option>
            </select>
        </label>
        <p id="transport-hint" class="field-hint">
            "What runs ask for; an agent without protobuf answers in SSE."
        </p>
    }
}

fn load() -> Option<BodyFormat> {
    #[cfg(feature = "hydrate")]
    {
        let v = window()
            .local_storage()
            .ok()
            .flatten()?
            .get_item(BodyFormat::STORAGE_KEY)
            .ok()
            .flatten()?;
        BodyFormat::parse(&v)
    }
    #[cfg(not(feature = "hydrate"))]
    None
}

fn save(_f: BodyFormat) {
    #[cfg(feature = "hydrate")]
    if let Some(s) = window().local_storage().ok().flatten() {
        let _ = s.set_item(BodyFormat::STORAGE_KEY, _f.as_str());
    }
}

//! Copying text to the clipboard from a button that says what happened ("Copied", "Copy
//! failed"): code blocks and message actions share it.

#[cfg(feature = "hydrate")]
use leptos::prelude::*;

/// The state of a Copy button (a code block's, a message's).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyState {
    Idle,
    /// Copied by the click with this id.
    Copied(u32),
    /// The clipboard is unavailable or refused (click id).
    Failed(u32),
}

/// Copies `text` with the async clipboard API; shows "Copied" (or "Copy failed") for 1.5 s.
#[cfg(feature = "hydrate")]
pub fn copy_to_clipboard(text: &str, state: RwSignal<CopyState>) {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;
    use wasm_bindgen::JsValue;

    static CLICKS: AtomicU32 = AtomicU32::new(0);
    let click = CLICKS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
    let finish = move |ok: bool| {
        state.try_set(if ok {
            CopyState::Copied(click)
        } else {
            CopyState::Failed(click)
        });
        set_timeout(
            move || {
                // Only the latest click resets the label.
                if matches!(state.try_get_untracked(),
                    Some(CopyState::Copied(c) | CopyState::Failed(c)) if c == click)
                {
                    state.try_set(CopyState::Idle);
                }
            },
            Duration::from_millis(1500),
        );
    };

    let Some(window) = web_sys::window() else {
        return finish(false);
    };
    let navigator = window.navigator();
    // `navigator.clipboard` is undefined outside secure contexts: calling it would throw.
    let available = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))
        .map(|c| !c.is_undefined() && !c.is_null())
        .unwrap_or(false);
    if !available {
        return finish(false);
    }
    let promise = navigator.clipboard().write_text(text);
    leptos::task::spawn_local(async move {
        let ok = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        finish(ok);
    });
}

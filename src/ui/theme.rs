//! The light/dark theme toggle.
//!
//! The page follows the system (`prefers-color-scheme`) until the user picks a theme; the pick
//! is stored in `localStorage` under [`STORAGE_KEY`] and applied as `data-theme` on `<html>`.
//! [`THEME_BOOT_SCRIPT`] (inlined in the document head) applies a stored pick before the first
//! paint, so a dark-theme user never sees a white flash.

use leptos::prelude::*;

/// The `localStorage` key of the user's pick (`"light"` or `"dark"`).
pub const STORAGE_KEY: &str = "agui-studio-theme";

/// Applies a stored pick before the first paint. Contains no `<`, `>` or `&`, so it survives
/// text escaping unchanged.
pub const THEME_BOOT_SCRIPT: &str = "try{var t=localStorage.getItem(\"agui-studio-theme\");if(t===\"light\"||t===\"dark\"){document.documentElement.setAttribute(\"data-theme\",t)}}catch(e){}";

/// Whether the dark theme is on, for views that tell frames about it (an MCP App is told of a
/// change with `ui/notifications/host-context-changed`). Provided by [`ThemeToggle`]'s parent
/// through [`provide_theme`]; `None` until the browser tells (the server cannot know), so SSR
/// and hydration agree.
#[derive(Clone, Copy)]
pub struct Theme(pub RwSignal<Option<bool>>);

/// Provide the page's [`Theme`] to everything below.
pub fn provide_theme() -> Theme {
    let theme = Theme(RwSignal::new(None));
    Effect::new(move |_| theme.0.set(Some(current_is_dark())));
    provide_context(theme);
    theme
}

/// A button that switches between the light and the dark theme (accessible name "Toggle
/// theme"; `aria-pressed` is true while the dark theme is on).
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let dark = use_context::<Theme>().unwrap_or_else(provide_theme).0;
    let toggle = move |_| {
        let next = !dark.get_untracked().unwrap_or_else(current_is_dark);
        apply(next);
        dark.set(Some(next));
    };
    view! {
        <button
            type="button"
            class="icon-btn theme-toggle"
            aria-label="Toggle theme"
            title="Toggle theme"
            aria-pressed=move || dark.get().unwrap_or(false).to_string()
            on:click=toggle
        >
            <span aria-hidden="true" class="theme-icon">
                {move || match dark.get() {
                    Some(true) => "☾",
                    Some(false) => "☀",
                    None => "◐",
                }}
            </span>
        </button>
    }
    .into_any()
}

/// Whether the dark theme is on: the stored pick (as applied to `<html>`), else the system's.
pub(crate) fn current_is_dark() -> bool {
    #[cfg(feature = "hydrate")]
    {
        let attr = document()
            .document_element()
            .and_then(|e| e.get_attribute("data-theme"));
        match attr.as_deref() {
            Some("dark") => true,
            Some("light") => false,
            _ => window()
                .match_media("(prefers-color-scheme: dark)")
                .ok()
                .flatten()
                .map(|m| m.matches())
                .unwrap_or(false),
        }
    }
    #[cfg(not(feature = "hydrate"))]
    {
        false
    }
}

/// Sets `data-theme` on `<html>` and remembers the pick.
fn apply(dark: bool) {
    let value = if dark { "dark" } else { "light" };
    #[cfg(feature = "hydrate")]
    {
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-theme", value);
        }
        if let Ok(Some(storage)) = window().local_storage() {
            let _ = storage.set_item(STORAGE_KEY, value);
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = value;
}

//! The side dock that holds the State and Events panels. On a wide screen it sits beside the
//! conversation, which keeps at least [`MIN_CONVERSATION_PX`] (the CSS holds the same bound),
//! and its width is the user's: drag its edge, or focus the edge and use the arrow keys. On a
//! narrower screen ([`DRAWER_QUERY`]) it is a drawer over the conversation, and on a phone a
//! full-screen sheet; there it takes the focus when it opens and Escape closes it, giving the
//! focus back to the toggle that opened it.

use leptos::html::Div;
use leptos::prelude::*;

/// When the dock is a drawer (or a sheet) rather than a column: the same query as the CSS.
pub const DRAWER_QUERY: &str = "(max-width: 1179px)";
/// The narrowest the conversation gets beside the dock (CSS: `.studio-main { min-width }`).
pub const MIN_CONVERSATION_PX: f64 = 480.0;
/// The dock's width bounds when resized (px).
pub const MIN_DOCK_PX: f64 = 280.0;
const STEP_PX: f64 = 32.0;

/// The dock's width chosen by the user (None: the stylesheet's default), shared by every
/// thread of the page.
#[derive(Clone, Copy)]
pub struct DockWidth(pub RwSignal<Option<f64>>);

impl DockWidth {
    /// The width kept from an earlier visit (in the browser; None on the server).
    pub fn new() -> Self {
        let width = RwSignal::new(None);
        #[cfg(feature = "hydrate")]
        Effect::new(move |_| {
            let kept = browser::storage()
                .and_then(|s| s.get_item(browser::WIDTH_KEY).ok().flatten())
                .and_then(|v| parse_px(&v));
            width.set(kept);
        });
        DockWidth(width)
    }
}

impl Default for DockWidth {
    fn default() -> Self {
        Self::new()
    }
}

/// `want` within the bounds: at least [`MIN_DOCK_PX`], at most what leaves the conversation
/// [`MIN_CONVERSATION_PX`] of the `room` the conversation and the dock share.
pub fn clamp_width(want: f64, room: f64) -> f64 {
    let max = (room - MIN_CONVERSATION_PX).max(MIN_DOCK_PX);
    want.clamp(MIN_DOCK_PX, max)
}

/// The dock (`<div class="dock" role="region" aria-label="Panels">`) around `children`.
/// `on_close` closes every panel in it.
#[component]
pub fn Dock(width: DockWidth, on_close: Callback<()>, children: Children) -> impl IntoView {
    let node = NodeRef::<Div>::new();
    let dragging = RwSignal::new(false);
    let style = move || {
        width
            .0
            .get()
            .map(|w| format!("--dock-width: {}px", px(w)))
            .unwrap_or_default()
    };
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        // A drawer or a sheet takes the focus where it opens, so Escape and Tab work in it.
        if browser::is_drawer() {
            if let Some(el) = node.get() {
                let _ = el.focus();
            }
        }
    });
    // Escape closes a drawer or a sheet wherever the focus is (a toggle in the header, the
    // page behind), unless something else used that Escape already.
    #[cfg(feature = "hydrate")]
    {
        let handle = window_event_listener(leptos::ev::keydown, move |ev| {
            if ev.key() == "Escape" && !ev.default_prevented() && browser::is_drawer() {
                ev.prevent_default();
                on_close.run(());
            }
        });
        on_cleanup(move || handle.remove());
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = on_close;
    let resize_to = move |want: f64| {
        let w = clamp_width(want, room());
        width.0.set(Some(w));
        keep(w);
    };
    let current = move || {
        width
            .0
            .get_untracked()
            .unwrap_or_else(|| rendered_width(node))
    };
    let on_handle_key = move |ev: leptos::ev::KeyboardEvent| {
        let w = current();
        let next = match ev.key().as_str() {
            // The handle is on the dock's left edge: left widens the dock.
            "ArrowLeft" => w + STEP_PX,
            "ArrowRight" => w - STEP_PX,
            "Home" => MIN_DOCK_PX,
            "End" => f64::MAX,
            _ => return,
        };
        ev.prevent_default();
        resize_to(next);
    };
    let on_pointer_down = move |ev: leptos::ev::PointerEvent| {
        if ev.button() != 0 {
            return;
        }
        ev.prevent_default();
        capture(&ev);
        dragging.set(true);
    };
    let on_pointer_move = move |ev: leptos::ev::PointerEvent| {
        if dragging.get_untracked() {
            resize_to(viewport_width() - f64::from(ev.client_x()));
        }
    };
    let on_pointer_up = move |_| dragging.set(false);
    view! {
        <div
            class="dock"
            class:resizing=move || dragging.get()
            role="region"
            aria-label="Panels"
            tabindex="-1"
            style=style
            node_ref=node
        >
            <div
                class="dock-handle"
                role="separator"
                aria-orientation="vertical"
                aria-label="Resize panels"
                aria-valuemin=px(MIN_DOCK_PX)
                aria-valuenow=move || width.0.get().map(px)
                tabindex="0"
                title="Drag, or use the arrow keys, to resize the panels"
                on:keydown=on_handle_key
                on:pointerdown=on_pointer_down
                on:pointermove=on_pointer_move
                on:pointerup=on_pointer_up
                on:pointercancel=on_pointer_up
            ></div>
            <div class="dock-panels">{children()}</div>
        </div>
    }
}

/// The close button of a panel in the dock.
#[component]
pub fn CloseButton(
    /// What it closes, for its accessible name ("Close shared state").
    label: &'static str,
    on_close: Callback<()>,
) -> impl IntoView {
    view! {
        <button
            type="button"
            class="btn small icon panel-close"
            aria-label=label
            title=label
            on:click=move |_| on_close.run(())
        >
            "×"
        </button>
    }
}

/// The width the conversation and the dock share: the viewport less the threads sidebar.
fn room() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        let threads = browser::width_of(".threads").unwrap_or(0.0);
        viewport_width() - threads
    }
    #[cfg(not(feature = "hydrate"))]
    {
        f64::MAX
    }
}

fn viewport_width() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        browser::viewport_width()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        0.0
    }
}

fn rendered_width(_node: NodeRef<Div>) -> f64 {
    #[cfg(feature = "hydrate")]
    {
        _node
            .get_untracked()
            .map(|el| f64::from(el.offset_width()))
            .unwrap_or(MIN_DOCK_PX)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        MIN_DOCK_PX
    }
}

/// A width in whole pixels, as kept and announced (written with integer formatting: the page's
/// module carries no float formatting or parsing of its own for this).
fn px(width: f64) -> String {
    (width.round() as i64).to_string()
}

/// A kept width: whole pixels (what [`px`] writes).
#[cfg(any(feature = "hydrate", test))]
fn parse_px(text: &str) -> Option<f64> {
    text.trim().parse::<i32>().ok().map(f64::from)
}

fn keep(_width: f64) {
    #[cfg(feature = "hydrate")]
    if let Some(s) = browser::storage() {
        let _ = s.set_item(browser::WIDTH_KEY, &px(_width));
    }
}

fn capture(_ev: &leptos::ev::PointerEvent) {
    #[cfg(feature = "hydrate")]
    browser::capture_pointer(_ev);
}

#[cfg(feature = "hydrate")]
mod browser {
    use leptos::wasm_bindgen::JsCast;
    use leptos::web_sys;

    /// Where the chosen width is kept between visits.
    pub const WIDTH_KEY: &str = "agui-studio.dock-width";

    pub fn is_drawer() -> bool {
        web_sys::window()
            .and_then(|w| w.match_media(super::DRAWER_QUERY).ok().flatten())
            .is_some_and(|m| m.matches())
    }

    pub fn viewport_width() -> f64 {
        web_sys::window()
            .and_then(|w| w.inner_width().ok())
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0)
    }

    pub fn width_of(selector: &str) -> Option<f64> {
        let el = web_sys::window()?
            .document()?
            .query_selector(selector)
            .ok()??;
        let el = el.dyn_into::<web_sys::HtmlElement>().ok()?;
        Some(f64::from(el.offset_width()))
    }

    pub fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.local_storage().ok().flatten()
    }

    pub fn capture_pointer(ev: &leptos::ev::PointerEvent) {
        if let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            let _ = el.set_pointer_capture(ev.pointer_id());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dock_never_takes_the_conversations_minimum() {
        // 1280 px less a 240 px sidebar: the dock may take 560 px at most.
        assert_eq!(clamp_width(900.0, 1040.0), 560.0);
        assert_eq!(clamp_width(400.0, 1040.0), 400.0);
        assert_eq!(clamp_width(10.0, 1040.0), MIN_DOCK_PX);
        // No room at all: the dock keeps its minimum (the CSS makes it a drawer there).
        assert_eq!(clamp_width(400.0, 500.0), MIN_DOCK_PX);
    }

    #[test]
    fn a_kept_width_is_whole_pixels_and_anything_else_is_ignored() {
        assert_eq!(px(420.4), "420");
        assert_eq!(px(420.5), "421");
        assert_eq!(parse_px(&px(512.0)), Some(512.0));
        assert_eq!(parse_px(" 600 "), Some(600.0));
        // What an older page wrote (`{:.0}`) reads the same; garbage is no width.
        for bad in ["", "wide", "1e3", "NaN", "inf", "99999999999"] {
            assert_eq!(parse_px(bad), None, "{bad}");
        }
    }
}

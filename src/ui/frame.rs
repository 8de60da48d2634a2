//! A sandboxed frame that runs agent HTML (MCP Apps, open generative UI) away from the studio's
//! origin: `sandbox="allow-scripts"` only (never `allow-same-origin`), loaded from the loader
//! route whose response policy limits what the HTML may reach (see [`crate::wire::frame`]).
//!
//! The page hands the frame its HTML by `postMessage` once the loader says it is ready, and
//! listens only to messages whose source is this frame's window. Messages are bounded in size
//! and number per second; a height the frame asks for is clamped.

use leptos::prelude::*;
use serde_json::Value;

use crate::wire::frame::FrameCsp;

/// Smallest and largest height a frame may ask for, in CSS pixels.
pub const MIN_HEIGHT: u32 = 40;
pub const MAX_HEIGHT: u32 = 4000;
/// Messages from a frame larger than this (as JSON) are dropped.
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;
/// At most this many messages per second from one frame reach its handler; the rest are dropped.
pub const MAX_MESSAGES_PER_SECOND: u32 = 100;

/// Posts messages into a frame (inert on the server). Cheap to copy.
#[derive(Clone, Copy)]
pub struct FramePort {
    #[cfg(feature = "hydrate")]
    frame: NodeRef<leptos::html::Iframe>,
    height: RwSignal<u32>,
}

impl FramePort {
    /// Post `msg` to the frame's document.
    pub fn post(&self, msg: &Value) {
        #[cfg(feature = "hydrate")]
        if let Some(w) = self.frame.get_untracked().and_then(|f| f.content_window()) {
            if let Ok(v) = js_sys::JSON::parse(&msg.to_string()) {
                let _ = w.post_message(&v, "*");
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = msg;
    }

    /// Set the frame's height (clamped to [`MIN_HEIGHT`]..=[`MAX_HEIGHT`]).
    pub fn set_height(&self, h: f64) {
        if h.is_finite() {
            self.height
                .set((h.round().max(0.0) as u32).clamp(MIN_HEIGHT, MAX_HEIGHT));
        }
    }

    /// The frame's size now (width, height) in CSS pixels.
    pub fn size(&self) -> (u32, u32) {
        #[cfg(feature = "hydrate")]
        if let Some(f) = self.frame.get_untracked() {
            return (
                f.client_width().max(0) as u32,
                f.client_height().max(0) as u32,
            );
        }
        (0, self.height.get_untracked())
    }
}

/// The frame. `html` is the document to run: the frame loads when it is first `Some` and loads
/// again each time it changes.
#[component]
pub fn SandboxFrame(
    /// The HTML document to run.
    #[prop(into)]
    html: Signal<Option<String>>,
    /// Accessible name of the frame.
    #[prop(into)]
    title: String,
    /// The domains the HTML may reach (MCP Apps' `_meta.ui.csp`); none by default.
    #[prop(optional)]
    csp: FrameCsp,
    /// Height before the frame says its own (clamped).
    #[prop(optional)]
    initial_height: Option<u32>,
    /// Messages the frame posts (other than the loader's and the size script's), with a port
    /// to answer it.
    #[prop(optional, into)]
    on_message: Option<Callback<(Value, FramePort)>>,
    /// Called once with the port when the component is created.
    #[prop(optional, into)]
    on_port: Option<Callback<FramePort>>,
) -> impl IntoView {
    let frame = NodeRef::<leptos::html::Iframe>::new();
    let height = RwSignal::new(initial_height.unwrap_or(160).clamp(MIN_HEIGHT, MAX_HEIGHT));
    let port = FramePort {
        #[cfg(feature = "hydrate")]
        frame,
        height,
    };
    if let Some(cb) = on_port {
        cb.run(port);
    }
    // Each new document loads the loader again (a new query value), which asks for it.
    let version = Memo::new(move |prev: Option<&u32>| {
        html.track();
        prev.map_or(0, |v| v + 1)
    });
    // The frame loads only once the page listens to it: the server renders it without `src`,
    // and it gets one after hydration (effects run only in the browser). A frame the server
    // rendered with its `src` could load, and its loader announce itself, before the page had
    // hydrated (or loaded the view's chunk), and that announcement came only once.
    let listening = RwSignal::new(false);
    Effect::new(move |_| listening.set(true));
    let base = csp.url();
    let src = move || {
        (listening.get() && html.with(|h| h.is_some())).then(|| {
            let sep = if base.contains('?') { '&' } else { '?' };
            format!("{base}{sep}v={}", version.get())
        })
    };
    #[cfg(feature = "hydrate")]
    listen(frame, html, port, on_message);
    #[cfg(not(feature = "hydrate"))]
    let _ = on_message;
    view! {
        <iframe
            node_ref=frame
            class="sandbox-frame"
            sandbox="allow-scripts"
            referrerpolicy="no-referrer"
            title=title
            src=src
            style=move || format!("height: {}px", height.get())
        ></iframe>
    }
}

/// Window message listener: this frame's messages only, bounded.
#[cfg(feature = "hydrate")]
fn listen(
    frame: NodeRef<leptos::html::Iframe>,
    html: Signal<Option<String>>,
    port: FramePort,
    on_message: Option<Callback<(Value, FramePort)>>,
) {
    use crate::wire::frame::{CK_RESIZE_MESSAGE, FRAME_HTML_MESSAGE, FRAME_SIZE_MESSAGE};
    let window_start = StoredValue::new((0.0f64, 0u32));
    let handle = window_event_listener(leptos::ev::message, move |ev| {
        let Some(own) = frame.get_untracked().and_then(|f| f.content_window()) else {
            return;
        };
        // Compared as JS values: a frame's window on another (here opaque) origin is no
        // `instanceof Window` of this page, so it cannot be cast to one.
        let own: &wasm_bindgen::JsValue = own.as_ref();
        let from_frame = ev
            .source()
            .is_some_and(|s| AsRef::<wasm_bindgen::JsValue>::as_ref(&s) == own);
        if !from_frame {
            return;
        }
        let now = js_sys::Date::now();
        let over =
            window_start.with_value(|(t, n)| now - t < 1000.0 && *n >= MAX_MESSAGES_PER_SECOND);
        if over {
            return;
        }
        window_start.update_value(|(t, n)| {
            if now - *t >= 1000.0 {
                *t = now;
                *n = 0;
            }
            *n += 1;
        });
        let Some(text) = js_sys::JSON::stringify(&ev.data())
            .ok()
            .and_then(|s| s.as_string())
        else {
            return;
        };
        if text.len() > MAX_MESSAGE_BYTES {
            return;
        }
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            return;
        };
        match value.get("type").and_then(Value::as_str) {
            Some(FRAME_HTML_MESSAGE) => {
                if let Some(doc) = html.get_untracked() {
                    let msg = serde_json::json!({ "type": FRAME_HTML_MESSAGE, "html": doc });
                    port.post(&msg);
                }
            }
            Some(FRAME_SIZE_MESSAGE | CK_RESIZE_MESSAGE) => {
                if let Some(h) = value.get("height").and_then(Value::as_f64) {
                    port.set_height(h);
                }
            }
            _ => {
                if let Some(cb) = on_message {
                    cb.run((value, port));
                }
            }
        }
    });
    on_cleanup(move || handle.remove());
}

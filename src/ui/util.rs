//! Small helpers shared by the studio's components: the page clock, JSON text helpers, a
//! throttled tick, and the stick-to-bottom scrolling of the transcript and the event inspector.

use leptos::html::Div;
use leptos::prelude::*;
use serde_json::Value;

/// Milliseconds on the page clock (the clock the session stamps events with); 0 on the server,
/// where nothing that needs it runs.
pub fn now_ms() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        crate::client::transport::now_ms()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        0.0
    }
}

/// `text` pretty-printed when it is JSON, else `None`.
pub fn pretty_json(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text.trim()).ok()?;
    serde_json::to_string_pretty(&v).ok()
}

/// A value as pretty JSON (never fails for `serde_json::Value`).
pub fn pretty_value(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// At most `max` characters of `s`, with "…" when cut.
pub fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A byte count for people.
pub fn human_bytes(n: u64) -> String {
    match n {
        n if n < 1024 => format!("{n} B"),
        n if n < 1024 * 1024 => format!("{} KB", tenths(n.into(), 1024)),
        n => format!("{} MB", tenths(n.into(), 1024 * 1024)),
    }
}

/// `value / unit` to one decimal, rounded half up: `12.3`. In integers, so the page's module
/// carries no float formatting for the figures it shows.
pub fn tenths(value: u128, unit: u128) -> String {
    let t = value.saturating_mul(10).saturating_add(unit / 2) / unit;
    format!("{}.{}", t / 10, t % 10)
}

/// A tick that moves at most once per `ms`: the first `bump` moves it as soon as the current
/// task ends (in a task of its own, so the views that follow it are not drawn in the same
/// long task as whatever bumped it), bumps within the next `ms` fold into one more move at its
/// end. Views that would otherwise redraw on every animation frame of a fast stream read the
/// tick instead.
pub fn throttled_tick(ms: u64) -> (RwSignal<u64>, impl Fn() + Copy + 'static) {
    let tick = RwSignal::new(0u64);
    // (a move is due or happened less than `ms` ago, a bump came in since)
    let state = StoredValue::new((false, false));
    fn arm(tick: RwSignal<u64>, state: StoredValue<(bool, bool)>, delay: u64, ms: u64) {
        set_timeout(
            move || {
                // The view that owns the tick may be gone by now (a closed panel): then the
                // values are disposed and nothing is done (the `try_` forms never panic).
                match state.try_with_value(|s| s.1) {
                    Some(true) => {
                        state.try_set_value((true, false));
                        tick.try_update(|t| *t += 1);
                        arm(tick, state, ms, ms);
                    }
                    Some(false) => {
                        state.try_set_value((false, false));
                    }
                    None => {}
                }
            },
            std::time::Duration::from_millis(delay),
        );
    }
    let bump = move || {
        if state.with_value(|s| s.0) {
            state.update_value(|s| s.1 = true);
        } else {
            state.set_value((true, true));
            arm(tick, state, 0, ms);
        }
    };
    (tick, bump)
}

/// How far from the bottom (px) still counts as "at the bottom".
const BOTTOM_SLACK: i32 = 48;

/// Stick-to-bottom scrolling for a scroll container: while `following`, content that grows
/// is scrolled into view — unless `armed` (read inside an effect, so it should read only the
/// signals it needs) last returned false (nothing to follow yet: an empty transcript keeps its
/// introduction in view); scrolling up stops following, scrolling back to the bottom resumes
/// it.
///
/// The scroll happens in a `ResizeObserver` on the container's content, which the browser runs
/// right after its layout of the frame: reading `scrollHeight` there costs nothing, where the
/// same read in an animation frame (before the frame's other callbacks have changed the page)
/// forced a second layout of the whole transcript on every frame of a stream. It also follows
/// growth no signal tells of (a frame sizing itself, an image loading).
///
/// Only a scroll *up* from where it last put the container stops following: the scroll event
/// of its own scroll arrives a frame later, when new content may already have grown the
/// container below it — that is not the user leaving the bottom.
///
/// Browser only in effect: on the server the effects never run and nothing scrolls.
pub fn stick_to_bottom(
    node: NodeRef<Div>,
    armed: impl Fn() -> bool + 'static,
) -> Stick<impl Fn() + Copy + 'static, impl Fn() + Copy + 'static, impl Fn() + Copy + 'static> {
    let following = RwSignal::new(true);
    // Where the last scroll to the bottom left the container.
    let pinned = StoredValue::new(0i32);
    let is_armed = StoredValue::new(false);
    let to_bottom = move || {
        if let Some(el) = node.get_untracked() {
            el.set_scroll_top(el.scroll_height());
            pinned.set_value(el.scroll_top());
        }
    };
    Effect::new(move |_| {
        is_armed.set_value(armed());
    });
    #[cfg(feature = "hydrate")]
    observe_content(node, move || {
        if is_armed.get_value() && following.get_untracked() {
            to_bottom();
        }
    });
    let on_scroll = move || {
        if let Some(el) = node.get_untracked() {
            let top = el.scroll_top();
            let at_bottom = el.scroll_height() - top - el.client_height() <= BOTTOM_SLACK;
            let follow = if at_bottom {
                pinned.set_value(top);
                true
            } else {
                following.get_untracked() && top >= pinned.get_value() - 1
            };
            if following.get_untracked() != follow {
                following.set(follow);
            }
        }
    };
    let jump = move || {
        following.set(true);
        to_bottom();
    };
    // After the next paint (a task of its own, when the page's layout is up to date), for a
    // change that may not resize the content.
    let follow = move || {
        following.set(true);
        request_animation_frame(move || {
            set_timeout(
                move || {
                    if following.get_untracked() {
                        to_bottom();
                    }
                },
                std::time::Duration::ZERO,
            )
        });
    };
    Stick {
        following,
        on_scroll,
        jump,
        follow,
    }
}

/// What [`stick_to_bottom`] gives its container.
pub struct Stick<S, J, F> {
    /// Whether the container follows its newest content.
    pub following: RwSignal<bool>,
    /// The container's `scroll` handler.
    pub on_scroll: S,
    /// Scroll to the bottom now and follow again (a click on "Latest").
    pub jump: J,
    /// Follow again, scrolling once the page is laid out (a change of what is shown).
    pub follow: F,
}

/// Run `on_resize` after the browser's layout of every frame in which an element child of the
/// container (as mounted) changed size. The observer and its callback live as long as the
/// container's view.
#[cfg(feature = "hydrate")]
fn observe_content(node: NodeRef<Div>, on_resize: impl Fn() + 'static) {
    use leptos::wasm_bindgen::{closure::Closure, JsCast};
    type Observing = (leptos::web_sys::ResizeObserver, Closure<dyn Fn()>);
    let observing = StoredValue::new_local(None::<Observing>);
    let on_resize = std::rc::Rc::new(on_resize);
    Effect::new(move |_| {
        let Some(el) = node.get() else {
            return;
        };
        if observing.with_value(Option::is_some) {
            return;
        }
        let on_resize = on_resize.clone();
        let callback = Closure::<dyn Fn()>::new(move || on_resize());
        let Ok(ro) = leptos::web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) else {
            return;
        };
        let children = el.children();
        for i in 0..children.length() {
            if let Some(child) = children.item(i) {
                ro.observe(&child);
            }
        }
        observing.set_value(Some((ro, callback)));
    });
    on_cleanup(move || {
        // Disconnected first: the browser never calls a dropped callback.
        if let Some((ro, callback)) = observing.try_update_value(Option::take).flatten() {
            ro.disconnect();
            drop(callback);
        }
    });
}

/// The `toggle` handler of a `<details>` whose `open` the app drives while `auto` is set: when
/// the user opens or closes it themselves, the app stops driving it.
pub fn on_user_toggle(
    open: RwSignal<bool>,
    auto: RwSignal<bool>,
) -> impl Fn(leptos::ev::Event) + Copy + 'static {
    move |ev: leptos::ev::Event| {
        use leptos::wasm_bindgen::JsCast;
        let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<leptos::web_sys::Element>().ok())
        else {
            return;
        };
        let now_open = el.has_attribute("open");
        if now_open != open.get_untracked() {
            auto.set(false);
            open.set(now_open);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_on_char_boundaries() {
        assert_eq!(truncate("héllo", 2), "hé…");
        assert_eq!(truncate("hi", 5), "hi");
    }

    #[test]
    fn pretty_json_only_for_json() {
        assert_eq!(
            pretty_json("{\"a\":1}").as_deref(),
            Some("{\n  \"a\": 1\n}")
        );
        assert_eq!(pretty_json("{\"a\":"), None);
    }

    #[test]
    fn byte_counts_and_tenths_read_as_float_formatting_did() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.0 KB");
        assert_eq!(human_bytes(1536), "1.5 KB");
        assert_eq!(human_bytes(1024 * 1024 - 1), "1024.0 KB");
        assert_eq!(human_bytes(8 * 1024 * 1024), "8.0 MB");
        assert_eq!(human_bytes(u64::MAX), "17592186044416.0 MB");
        // Against `{:.1}` away from its ties (which it rounds to even, and these up).
        for n in [1100u64, 5000, 70_000, 999_999, 3_333_333, 123_456_789] {
            let (unit, name) = if n < 1024 * 1024 {
                (1024.0, "KB")
            } else {
                (1048576.0, "MB")
            };
            assert_eq!(
                human_bytes(n),
                format!("{:.1} {name}", n as f64 / unit),
                "{n}"
            );
        }
        assert_eq!(tenths(12_345, 1000), "12.3");
        assert_eq!(tenths(12_350, 1000), "12.4");
        assert_eq!(tenths(0, 1000), "0.0");
    }
}

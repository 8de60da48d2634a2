//! A collapsible JSON tree view, built from `<details>`/`<summary>` so it folds without script
//! (and before hydration). The fallback of the render-hint registry; reusable by any panel.
//!
//! Containers at depth `>= collapsed_depth` start folded (the root is depth 0). Containers show at
//! most [`MAX_CHILDREN`] entries, then "… n more"; beyond [`MAX_DEPTH`] a value is shown as compact
//! JSON text, itself bounded ([`json_text`]). All text goes in as text nodes.
//!
//! Depth is bounded because rendering recurses once per level, on the server as in the
//! browser: a value nested 10,000 deep must not overflow the stack (see [`json_text`], which
//! every JSON-to-text conversion of agent data in the UI uses for the same reason).

use leptos::prelude::*;
use serde_json::Value;

/// Containers at this depth and deeper start folded unless `collapsed_depth` says otherwise.
pub const DEFAULT_COLLAPSED_DEPTH: usize = 2;
/// Entries shown per object or array.
pub const MAX_CHILDREN: usize = 500;
/// Nesting shown as a tree; deeper values are shown as compact JSON text.
pub const MAX_DEPTH: usize = 16;
/// Nesting written out by [`json_text`] in a JSON view (deeper containers become `[…]`/`{…}`).
pub const TEXT_DEPTH: usize = 32;
/// Bytes of compact text shown for a value past [`MAX_DEPTH`].
pub const TEXT_BYTES: usize = 4096;

/// A collapsible tree view of `value`.
#[component]
pub fn JsonView(
    /// The value to show.
    #[prop(into)]
    value: Signal<Value>,
    /// Containers at this depth and deeper start folded (root = 0; default
    /// [`DEFAULT_COLLAPSED_DEPTH`]).
    #[prop(optional)]
    collapsed_depth: Option<usize>,
) -> impl IntoView {
    let collapsed_depth = collapsed_depth.unwrap_or(DEFAULT_COLLAPSED_DEPTH);
    view! { <div class="json-view">{move || value.with(|v| json_tree(v, collapsed_depth))}</div> }
}

/// The tree of `value`, not wrapped (for callers that do their own container).
pub fn json_tree(value: &Value, collapsed_depth: usize) -> AnyView {
    node(Key::Root, value, 0, collapsed_depth)
}

enum Key<'a> {
    Root,
    Name(&'a str),
    Index(usize),
}

fn key_view(key: Key<'_>) -> Option<AnyView> {
    Some(match key {
        Key::Root => return None,
        Key::Name(name) => {
            let quoted = serde_json::to_string(name).unwrap_or_default();
            view! { <span class="json-key">{quoted}</span><span class="json-punct">": "</span> }
                .into_any()
        }
        Key::Index(i) => {
            view! { <span class="json-index">{i}</span><span class="json-punct">": "</span> }
                .into_any()
        }
    })
}

fn node(key: Key<'_>, value: &Value, depth: usize, collapsed_depth: usize) -> AnyView {
    let (open, close, count, children): (&str, &str, String, Vec<AnyView>) = match value {
        Value::Array(items) if !items.is_empty() && depth < MAX_DEPTH => {
            let children = items
                .iter()
                .take(MAX_CHILDREN)
                .enumerate()
                .map(|(i, v)| node(Key::Index(i), v, depth + 1, collapsed_depth))
                .collect();
            (
                "[",
                "]",
                plural(items.len(), "item", "items"),
                with_more(children, items.len()),
            )
        }
        Value::Object(map) if !map.is_empty() && depth < MAX_DEPTH => {
            let children = map
                .iter()
                .take(MAX_CHILDREN)
                .map(|(k, v)| node(Key::Name(k), v, depth + 1, collapsed_depth))
                .collect();
            (
                "{",
                "}",
                plural(map.len(), "key", "keys"),
                with_more(children, map.len()),
            )
        }
        scalar => {
            let (class, text) = scalar_parts(scalar);
            return view! { <div class="json-row">{key_view(key)}<span class=class>{text}</span></div> }
                .into_any();
        }
    };
    let is_open = depth < collapsed_depth;
    let ellipsis = format!("…{close}");
    view! {
        <details class="json-node" open=is_open>
            <summary>
                {key_view(key)}
                <span class="json-punct">{open}</span>
                <span class="json-ellipsis">{ellipsis}</span>
                <span class="json-count">{count}</span>
            </summary>
            <div class="json-children">{children}</div>
            <div class="json-punct json-close">{close}</div>
        </details>
    }
    .into_any()
}

fn with_more(mut children: Vec<AnyView>, total: usize) -> Vec<AnyView> {
    if total > MAX_CHILDREN {
        let more = format!("… {} more", total - MAX_CHILDREN);
        children.push(view! { <div class="json-more">{more}</div> }.into_any());
    }
    children
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// CSS class and text of a value shown on one line (scalars, empty containers, too-deep values).
fn scalar_parts(value: &Value) -> (&'static str, String) {
    match value {
        Value::Null => ("json-null", "null".into()),
        Value::Bool(b) => ("json-bool", b.to_string()),
        Value::Number(n) => ("json-number", n.to_string()),
        Value::String(s) => ("json-string", serde_json::to_string(s).unwrap_or_default()),
        Value::Array(a) if a.is_empty() => ("json-punct", "[]".into()),
        Value::Object(o) if o.is_empty() => ("json-punct", "{}".into()),
        deep => ("json-deep", json_text(deep, false, TEXT_DEPTH, TEXT_BYTES)),
    }
}

/// `value` as JSON text (`pretty`: as `serde_json::to_string_pretty` writes it), written
/// without recursion: containers nested deeper than `max_depth` are written `[…]` / `{…}`, and
/// text past `max_bytes` is cut (at a character boundary) and ends with `…`. Within both
/// bounds the text is exactly serde_json's.
pub fn json_text(value: &Value, pretty: bool, max_depth: usize, max_bytes: usize) -> String {
    enum Open<'a> {
        Array(std::slice::Iter<'a, Value>),
        Object(serde_json::map::Iter<'a>),
    }
    fn newline(out: &mut String, pretty: bool, depth: usize) {
        if pretty {
            out.push('\n');
            for _ in 0..depth {
                out.push_str("  ");
            }
        }
    }
    let mut out = String::new();
    let mut stack: Vec<(Open<'_>, bool)> = Vec::new();
    let mut next = Some(value);
    while out.len() <= max_bytes {
        if let Some(v) = next.take() {
            match v {
                Value::Array(a) if a.is_empty() => out.push_str("[]"),
                Value::Object(o) if o.is_empty() => out.push_str("{}"),
                Value::Array(_) if stack.len() >= max_depth => out.push_str("[…]"),
                Value::Object(_) if stack.len() >= max_depth => out.push_str("{…}"),
                Value::Array(a) => {
                    out.push('[');
                    stack.push((Open::Array(a.iter()), true));
                }
                Value::Object(o) => {
                    out.push('{');
                    stack.push((Open::Object(o.iter()), true));
                }
                scalar => out.push_str(&serde_json::to_string(scalar).unwrap_or_default()),
            }
        }
        let depth = stack.len();
        let Some((open, first)) = stack.last_mut() else {
            break;
        };
        let was_first = std::mem::replace(first, false);
        let (item, close) = match open {
            Open::Array(items) => (items.next().map(|v| (None, v)), ']'),
            Open::Object(entries) => (entries.next().map(|(k, v)| (Some(k), v)), '}'),
        };
        match item {
            Some((key, v)) => {
                if !was_first {
                    out.push(',');
                }
                newline(&mut out, pretty, depth);
                if let Some(key) = key {
                    out.push_str(&serde_json::to_string(key).unwrap_or_default());
                    out.push_str(if pretty { ": " } else { ":" });
                }
                next = Some(v);
            }
            None => {
                stack.pop();
                newline(&mut out, pretty, depth - 1);
                out.push(close);
            }
        }
    }
    if out.len() > max_bytes {
        let mut cut = max_bytes;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// Whether JSON `text` nests at most `max` containers deep (a byte scan that skips strings; it
/// does not validate). Used before parsing agent text: serde_json's parser recurses once per
/// level up to 128, more stack than a small thread has in a debug build.
pub fn nesting_within(text: &str, max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// The `<option>`s of a select over JSON values: value = index, text = the string itself or the
/// value's JSON (bounded), `selected(index)` marks the chosen one; and the placeholder option's
/// text (a required select asks for a choice, an optional one offers none).
pub fn select_options(
    options: &[Value],
    required: bool,
    selected: impl Fn(usize) -> bool,
) -> (&'static str, Vec<leptos::prelude::AnyView>) {
    use leptos::prelude::*;
    let placeholder = if required {
        "— choose —"
    } else {
        "— none —"
    };
    let views = options
        .iter()
        .enumerate()
        .map(|(j, o)| {
            let text = match o {
                Value::String(s) => s.clone(),
                other => json_text(other, false, TEXT_DEPTH, TEXT_BYTES),
            };
            view! { <option value=j.to_string() selected=selected(j)>{text}</option> }.into_any()
        })
        .collect();
    (placeholder, views)
}

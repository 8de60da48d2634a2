//! Registry and server-rendering tests (`cargo test --features ssr --lib ui::render_hints`).
//! Each component file tests its own props validation.

use super::*;
use serde_json::json;

/// Server-renders a view built inside a fresh reactive owner.
fn html<V: IntoView + 'static>(f: impl FnOnce() -> V) -> String {
    let owner = Owner::new();
    owner.with(|| f().into_view().to_html())
}

fn hint(component: &str, props: Value) -> String {
    let component = component.to_string();
    html(move || view! { <RenderHint component=component props=props/> })
}

/// The names of every attribute of every tag in `html` (a small tokenizer that honours quotes),
/// to prove that no `on…` attribute was produced.
fn attribute_names(html: &str) -> Vec<String> {
    let b = html.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'<' {
            i += 1;
            while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                i += 1;
            }
            loop {
                while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
                    i += 1;
                }
                if i >= b.len() || b[i] == b'>' {
                    break;
                }
                let start = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && !b"=>/".contains(&b[i]) {
                    i += 1;
                }
                names.push(html[start..i].to_ascii_lowercase());
                if i < b.len() && b[i] == b'=' {
                    i += 1;
                    if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                        let q = b[i];
                        i += 1;
                        while i < b.len() && b[i] != q {
                            i += 1;
                        }
                        i += 1;
                    } else {
                        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                            i += 1;
                        }
                    }
                }
            }
        }
        i += 1;
    }
    names
}

fn assert_no_raw_html(out: &str) {
    assert!(!out.contains("<script"), "raw <script> in {out}");
    assert!(!out.contains("<img src=x"), "raw <img> in {out}");
    let bad: Vec<_> = attribute_names(out)
        .into_iter()
        .filter(|n| n.starts_with("on"))
        .collect();
    assert!(bad.is_empty(), "event-handler attributes {bad:?} in {out}");
}

#[test]
fn registry_names_and_lookup() {
    // The page's own code checks names without the renderers (they are the hint's chunk).
    let names: Vec<&str> = registry().iter().map(|(n, _)| *n).collect();
    assert_eq!(names, NAMES);
    assert!(NAMES.contains(&"table") && NAMES.contains(&"progress"));
    assert!(lookup("chart").is_some());
    assert!(lookup("Chart").is_some(), "case-insensitive");
    assert!(lookup("progress").is_some());
    assert!(lookup("StockChart").is_none());
    assert!(lookup("").is_none());
    for name in ["chart", "Chart", " progress ", "StockChart", ""] {
        assert_eq!(is_registered(name), lookup(name).is_some(), "{name:?}");
    }
}

#[test]
fn hint_parts_of_a_custom_value() {
    let v = json!({"component": "table", "props": {"columns": ["a"], "rows": []}});
    let (c, p) = hint_parts(&v).unwrap();
    assert_eq!(c, "table");
    assert_eq!(p["columns"], json!(["a"]));
    assert_eq!(
        hint_parts(&json!({"component": "card"})).unwrap().1,
        json!({})
    );
    assert!(hint_parts(&json!({"props": {}})).is_none());
    assert!(hint_parts(&json!("table")).is_none());
}

#[test]
fn render_reports_unknown_and_invalid() {
    let owner = Owner::new();
    owner.with(|| {
        assert_eq!(
            render("nope", &json!({})).err().unwrap().to_string(),
            "Unknown component 'nope'"
        );
        assert_eq!(
            render("chart", &json!({"labels": []}))
                .err()
                .unwrap()
                .to_string(),
            "Invalid props for 'chart': \"labels\" must have 1 to 50 entries, got 0"
        );
    });
}

#[test]
fn ssr_bar_chart_has_one_rect_per_bar() {
    let out = hint(
        "chart",
        json!({"type": "bar", "title": "Revenue", "labels": ["Q1", "Q2", "Q3", "Q4"],
               "series": [{"name": "2023", "values": [1, 2, 3, 4]},
                          {"name": "2024", "values": [2, -1, 4, 5.5]}]}),
    );
    assert!(out.starts_with("<figure"), "{out}");
    assert!(out.contains("data-component=\"chart\""));
    assert!(out.contains("class=\"render-hint\""));
    assert!(out.contains("<svg"), "{out}");
    assert!(out.contains("role=\"img\""));
    assert!(out.contains("aria-label=\"Revenue\""));
    assert!(out.contains("viewBox=\"0 0 640 300\""), "{out}");
    assert_eq!(out.matches("<rect").count(), 8, "{out}");
    assert!(out.contains("2024 · Q2: -1"));
    assert!(out.contains("rh-legend"));
    assert!(!out.contains("rh-fallback"));
}

#[test]
fn ssr_line_chart_has_one_polyline_per_series() {
    let out = hint(
        "chart",
        json!({"type": "line", "labels": ["a", "b", "c"],
               "series": [{"name": "x", "values": [1, 2, 3]}, {"name": "y", "values": [3, 2, 1]},
                          {"name": "z", "values": [0, 0, 0]}]}),
    );
    assert_eq!(out.matches("<polyline").count(), 3, "{out}");
    assert_eq!(out.matches("<circle").count(), 9);
    assert_eq!(out.matches("<rect").count(), 0);
    assert!(
        out.contains("aria-label=\"Line chart of x, y, z\""),
        "{out}"
    );
}

#[test]
fn ssr_table_has_a_th_per_column() {
    let out = hint(
        "table",
        json!({"title": "People", "columns": ["Name", "Age", "City"],
               "rows": [["Ann", 31, "Oslo"], ["Bo", null, "Rome"]]}),
    );
    assert_eq!(out.matches("<th ").count(), 3, "{out}");
    assert_eq!(out.matches("<td").count(), 6);
    assert!(out.contains("<caption>People</caption>"));
    assert_eq!(
        out.matches("<td class=\"rh-num\"").count(),
        1,
        "numeric cells are marked: {out}"
    );
    // The header of the numeric column is aligned with its numbers; the others are not.
    assert_eq!(
        out.matches("<th scope=\"col\" class=\"rh-num\"").count(),
        1,
        "{out}"
    );
    assert!(!out.contains("class=\"\""), "{out}");
}

#[test]
fn ssr_unknown_component_falls_back_to_json() {
    let out = hint(
        "StockChart",
        json!({"symbol": "AAPL", "data": [{"t": 1, "close": 189.5}]}),
    );
    assert!(out.contains("data-component=\"StockChart\""), "{out}");
    assert!(out.contains("rh-fallback"));
    assert!(out.contains("Unknown component"), "{out}");
    assert!(out.contains("StockChart"));
    assert!(out.contains("class=\"json-view\""));
    assert!(
        out.contains("&quot;AAPL&quot;") || out.contains("\"AAPL\""),
        "{out}"
    );
    assert!(out.contains("189.5"));
}

#[test]
fn ssr_invalid_props_fall_back_with_the_reason() {
    let out = hint(
        "chart",
        json!({"type": "bar", "labels": ["a", "b"], "series": [{"name": "s", "values": [1]}]}),
    );
    assert!(out.contains("Invalid props for"), "{out}");
    assert!(
        out.contains("series 1 has 1 values but there are 2 labels"),
        "{out}"
    );
    assert!(out.contains("class=\"json-view\""));
    assert!(!out.contains("<svg"));
}

#[test]
fn ssr_untrusted_strings_are_escaped() {
    let script = "<script>alert(1)</script>";
    let img = "<img src=x onerror=alert(1)>";
    let cases = [
        (
            "table",
            json!({"title": script, "columns": [script, img], "rows": [[img, script]]}),
        ),
        (
            "card",
            json!({"title": script, "body": img, "fields": {script: img}, "actions": [img]}),
        ),
        (
            "chart",
            json!({"title": img, "labels": [script], "series": [{"name": img, "values": [1]}]}),
        ),
        (
            "checklist",
            json!({"title": img, "steps": [{"description": script, "status": "pending"}]}),
        ),
        ("code", json!({"language": img, "code": script})),
        (
            "form",
            json!({"title": script, "submit_label": img,
            "fields": [{"name": img, "label": script, "type": "enum", "options": [img], "default": img}]}),
        ),
        (
            "image",
            json!({"url": "https://x.test/a.png", "alt": img, "caption": script}),
        ),
        (img, json!({"a": script, img: [img]})),
        ("chart", json!({"labels": script, "x": img})),
    ];
    for (component, props) in cases {
        let out = hint(component, props);
        assert_no_raw_html(&out);
        assert!(
            out.contains("&lt;script&gt;") || out.contains("&lt;img"),
            "{component}: {out}"
        );
    }
}

#[test]
fn ssr_image_rejects_javascript_urls() {
    let out = hint("image", json!({"url": "javascript:alert(1)", "alt": "x"}));
    assert!(out.contains("Invalid props for"), "{out}");
    assert!(out.contains("is not allowed"));
    assert!(!out.contains("<img"), "{out}");
    assert!(!out.contains("src="));

    let data = hint(
        "image",
        json!({"url": "data:image/png;base64,iVBORw0KGgo=", "alt": "A cat"}),
    );
    assert!(data.contains("<img"), "{data}");
    assert!(data.contains("src=\"data:image/png;base64,iVBORw0KGgo=\""));
    assert!(data.contains("alt=\"A cat\""));
    assert!(data.contains("referrerpolicy=\"no-referrer\""));
}

/// A remote image (from a render hint, or a tool call named `image`, which renders the same
/// component) is not loaded: a placeholder names its host and offers a "Load image" button;
/// once allowed, that image loads, without a referrer.
#[test]
fn ssr_remote_images_wait_for_the_user() {
    let props = json!({"url": "https://tracker.example/p.png?u=1", "alt": "A cat"});
    let out = hint("image", props.clone());
    assert!(!out.contains("<img"), "{out}");
    assert!(!out.contains("tracker.example/p.png"), "{out}");
    assert!(out.contains("tracker.example"), "{out}");
    assert!(out.contains(">Load image</button>"), "{out}");

    let call = html(move || {
        let mut call = crate::protocol::types::ToolCall::new("c1".into(), "image".into());
        call.function.arguments = props.to_string();
        view! { <crate::ui::tool_call::ToolCallCard call=Signal::stored(call)/> }
    });
    assert!(!call.contains("<img"), "{call}");
    assert!(call.contains(">Load image</button>"), "{call}");

    let loaded = html(|| {
        let p = image::parse(&json!({"url": "https://x.example/a.png", "alt": "A cat"})).unwrap();
        let allowed = RwSignal::new(false);
        let view = image::view_with(p, allowed);
        allowed.set(true);
        view
    });
    assert!(loaded.contains("<img"), "{loaded}");
    assert!(loaded.contains("src=\"https://x.example/a.png\""));
    assert!(loaded.contains("referrerpolicy=\"no-referrer\""));
}

#[test]
fn ssr_checklist_has_progress() {
    let out = hint(
        "progress",
        json!({"title": "Plan", "steps": [
            {"description": "one", "status": "completed"},
            {"description": "two", "status": "completed"},
            {"description": "three", "status": "in_progress"},
            {"description": "four", "status": "pending"}]}),
    );
    assert!(out.contains("<progress"), "{out}");
    assert!(out.contains("value=\"2\""));
    assert!(out.contains("max=\"4\""));
    assert!(out.contains("aria-label=\"2 of 4 steps completed\""));
    assert_eq!(out.matches("<li").count(), 4);
    assert!(out.contains("data-status=\"in_progress\""));
}

#[test]
fn ssr_card_and_code() {
    let card = hint(
        "card",
        json!({"title": "Order", "body": "Shipped", "fields": [{"label": "Total", "value": "$4"}],
               "actions": ["Track"]}),
    );
    assert!(
        card.contains("<dt>Total</dt>") && card.contains("<dd>$4</dd>"),
        "{card}"
    );
    assert!(card.contains("aria-disabled=\"true\""));
    let code = hint(
        "code",
        json!({"language": "Rust", "code": "fn main() { 1 < 2; }"}),
    );
    assert!(code.contains("data-language=\"rust\""), "{code}");
    assert!(code.contains("fn main() { 1 &lt; 2; }"), "{code}");
}

#[test]
fn ssr_form_labels_point_at_inputs() {
    let out = hint(
        "form",
        json!({"title": "Book", "fields": [
            {"name": "guest", "label": "Name", "type": "string", "required": true},
            {"name": "size", "type": "number", "default": 2},
            {"name": "when", "type": "date"},
            {"name": "terrace", "type": "boolean", "default": true},
            {"name": "menu", "type": "enum", "options": ["set", "carte"], "default": "carte"}]}),
    );
    for name in ["guest", "size", "when", "terrace", "menu"] {
        let start = out.find(&format!("-{name}\"")).expect(name);
        let id_start = out[..start].rfind('"').unwrap() + 1;
        let id = &out[id_start..start + name.len() + 1];
        assert!(
            out.contains(&format!("for=\"{id}\"")),
            "label for {id}: {out}"
        );
        assert!(out.contains(&format!("id=\"{id}\"")), "input {id}: {out}");
    }
    assert!(out.contains("type=\"date\""));
    assert!(out.contains("type=\"checkbox\""));
    assert!(out.contains("checked"));
    assert!(out.contains("value=\"2\""));
    assert!(out.contains("<select"));
    assert!(out.contains("novalidate"));
    assert!(out.contains(">Submit<"), "{out}");
}

#[test]
fn ssr_schema_form_with_an_id_prefix() {
    let fields = form::parse(&json!({"fields": [
        {"name": "reason", "label": "Reason", "required": true},
        {"name": "n", "type": "integer"}]}))
    .unwrap()
    .fields;
    let out = html(move || {
        view! {
            <SchemaForm fields=fields on_submit=|_: Value| {} submit_label="Resume" id_prefix="int 1"/>
        }
    });
    assert!(out.contains("for=\"int-1-0-reason\""), "{out}");
    assert!(out.contains("id=\"int-1-1-n\""));
    assert!(out.contains("step=\"1\""));
    assert!(out.contains(">Resume<"));
}

#[test]
fn ssr_json_view_collapses_deep_levels() {
    let value = json!({"a": {"b": {"c": [1, 2]}}, "s": "x", "e": []});
    let out = html(move || view! { <JsonView value=value.clone() collapsed_depth=1/> });
    assert_eq!(out.matches("<details").count(), 4, "{out}");
    assert_eq!(
        out.matches(" open").count(),
        1,
        "only the root is open: {out}"
    );
    assert!(out.contains("json-string"));
    assert!(out.contains("[]"));
    let out = html(|| view! { <JsonView value=json!({"a": {"b": 1}})/> });
    assert_eq!(
        out.matches(" open").count(),
        2,
        "default depth opens two levels: {out}"
    );
}

#[test]
fn attribute_scanner_sees_event_handlers() {
    let names = attribute_names(r#"<p a="x onerror=y" b='>'><img src=x onerror=alert(1)></p>"#);
    assert_eq!(names, ["a", "b", "src", "onerror"]);
}

/// `{"k": [{"k": … 0 …}]}` nested `n` deep, built without recursion (`json!` would serialise
/// the inner value again at every level).
fn deep(n: usize) -> Value {
    let mut v = json!(0);
    for i in 0..n {
        v = if i % 2 == 0 {
            Value::Object(std::iter::once(("k".to_string(), v)).collect())
        } else {
            Value::Array(vec![v])
        };
    }
    v
}

/// Server-renders on a 256 KiB stack, then leaks the reactive owner: it holds the deep value,
/// and serde_json's drop recurses once per level (the test's own copies are dismantled with
/// `drop_iteratively`). What is tested is that rendering never recurses per level.
fn html_on_small_stack<V: IntoView + 'static>(f: impl FnOnce() -> V + Send + 'static) -> String {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let owner = Owner::new();
            let out = owner.with(|| f().into_view().to_html());
            std::mem::forget(owner);
            out
        })
        .unwrap()
        .join()
        .expect("rendering overflowed the stack or panicked")
}

#[test]
fn deep_json_renders_through_every_json_view_on_a_small_stack() {
    let out = html_on_small_stack(|| {
        let v = deep(10_000);
        view! { <JsonView value=Signal::stored(v) collapsed_depth=3/> }
    });
    assert!(out.contains("json-deep"), "past the tree's depth, text");
    assert!(
        out.contains("{…}") || out.contains("[…]"),
        "the text is bounded too"
    );
    assert!(out.len() < 200_000, "{}", out.len());
    let out = html_on_small_stack(|| {
        let state = Signal::stored(deep(10_000));
        view! { <crate::ui::state_panel::StatePanel state on_save=Callback::new(|_| ())/> }
    });
    assert!(out.contains("json-deep"), "the state tree is bounded");
    // Tool-call arguments too deep to parse safely are shown as text.
    for args in ["[".repeat(10_000), "[".repeat(120) + &"]".repeat(120)] {
        let out = html_on_small_stack(move || {
            let mut call = crate::protocol::types::ToolCall::new("c".into(), "t".into());
            call.function.arguments = args;
            view! { <crate::ui::tool_call::ToolCallCard call=Signal::stored(call)/> }
        });
        assert!(out.contains("tool-args") && out.contains("[[[["));
    }
    assert!(json::nesting_within(r#"{"a": "[[[[", "b": [{}]}"#, 3));
    assert!(json::nesting_within(r#"{"a": "\"[[", "b": [{}]}"#, 3));
    assert!(!json::nesting_within(r#"{"a": "\"", "b": [{}]}"#, 2));
    // The registry's fallback, and registered components given deep props or deep fields.
    // `json!` would serialise a deep value given to it, recursively: put it in place instead.
    let with = |template: Value, pointer: &str| -> Value {
        let mut t = template;
        *t.pointer_mut(pointer).unwrap() = deep(10_000);
        t
    };
    for (component, props) in [
        ("no-such-component", deep(10_000)),
        (
            "card",
            with(json!({"title": "t", "fields": {"d": 0}}), "/fields/d"),
        ),
        ("card", deep(10_000)),
        (
            "table",
            with(json!({"columns": ["a"], "rows": [[0]]}), "/rows/0/0"),
        ),
        (
            "form",
            with(
                json!({"title": "t", "fields": [{"name": "a", "type": "json", "default": 0}]}),
                "/fields/0/default",
            ),
        ),
        (
            "form",
            with(
                json!({"fields": [{"name": "a", "type": "enum", "options": [0]}]}),
                "/fields/0/options/0",
            ),
        ),
        ("checklist", with(json!({"items": [0]}), "/items/0")),
        (
            "chart",
            with(
                json!({"type": "bar", "labels": ["a"], "series": [0]}),
                "/series/0",
            ),
        ),
        ("code", with(json!({"code": 0}), "/code")),
        ("image", with(json!({"url": 0, "alt": "a"}), "/url")),
    ] {
        let out = html_on_small_stack(move || {
            let component = component.to_string();
            view! { <RenderHint component=component props=Signal::stored(props)/> }
        });
        assert!(out.contains("render-hint"), "{component}");
    }
}

#[test]
fn json_text_is_serde_json_within_bounds_and_bounded_past_them() {
    let v = json!({"a": [1, {"b": null, "c": "é\n\""}], "e": {}, "f": [], "g": 1.5});
    assert_eq!(json::json_text(&v, false, 64, 1 << 20), v.to_string());
    assert_eq!(
        json::json_text(&v, true, 64, 1 << 20),
        serde_json::to_string_pretty(&v).unwrap()
    );
    assert_eq!(
        json::json_text(&v, false, 1, 1 << 20),
        r#"{"a":[…],"e":{},"f":[],"g":1.5}"#
    );
    assert_eq!(json::json_text(&json!("ééé"), false, 64, 4), "\"é…");
    let text = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let v = deep(100_000);
            let t = json::json_text(&v, true, usize::MAX, 1 << 20);
            crate::protocol::limits::drop_iteratively(v);
            t
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(text.len() <= (1 << 20) + 3 && text.ends_with('…'));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
    /// Bounded text of any value within the bounds is exactly serde_json's (compact and pretty).
    #[test]
    fn json_text_matches_serde_json(v in arb_json()) {
        proptest::prop_assert_eq!(json::json_text(&v, false, 64, 1 << 20), v.to_string());
        proptest::prop_assert_eq!(
            json::json_text(&v, true, 64, 1 << 20),
            serde_json::to_string_pretty(&v).unwrap()
        );
    }
}

fn arb_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

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
    let names: Vec<&str> = registry().iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "table",
            "chart",
            "card",
            "checklist",
            "progress",
            "form",
            "code",
            "image"
        ]
    );
    assert!(lookup("chart").is_some());
    assert!(lookup("Chart").is_some(), "case-insensitive");
    assert!(lookup("progress").is_some());
    assert!(lookup("StockChart").is_none());
    assert!(lookup("").is_none());
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
            render("nope", &json!({})).err().unwrap(),
            "Unknown component 'nope'"
        );
        assert_eq!(
            render("chart", &json!({"labels": []})).err().unwrap(),
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
        out.matches("class=\"rh-num\"").count(),
        1,
        "numeric cells are marked: {out}"
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

    let ok = hint(
        "image",
        json!({"url": "https://example.com/a.png", "alt": "A cat"}),
    );
    assert!(ok.contains("<img"), "{ok}");
    assert!(ok.contains("src=\"https://example.com/a.png\""));
    assert!(ok.contains("alt=\"A cat\""));
    assert!(ok.contains("referrerpolicy=\"no-referrer\""));
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
fn ssr_schema_form_from_json_schema() {
    let fields = fields_from_json_schema(&json!({
        "type": "object",
        "properties": {"reason": {"type": "string", "title": "Reason"}, "n": {"type": "integer"}},
        "required": ["reason"]
    }));
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

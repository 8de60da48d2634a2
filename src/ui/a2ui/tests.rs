//! Tests of the A2UI renderer: the pure state (processing, edits, clock, ids) and, with `ssr`,
//! the rendered HTML of every catalog component (names, roles, escaping, placeholders).

use serde_json::{json, Value};

use super::state::*;
use crate::protocol::types::{ActivityMessage, JsonObject, Message};

fn activity(content: Value) -> Message {
    let content: JsonObject = content.as_object().cloned().unwrap_or_default();
    Message::Activity(ActivityMessage {
        id: "a2ui-surface-1".into(),
        activity_type: "a2ui-surface".into(),
        content,
        metadata: None,
        subagent_run_id: None,
    })
}

fn ops(list: Value) -> Message {
    activity(json!({ "a2ui_operations": list }))
}

fn surface(components: Value, data: Value) -> Message {
    ops(json!([
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json",
            "theme": {"primaryColor": "#112233", "agentDisplayName": "Helper"}}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": components}},
        {"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/", "value": data}},
    ]))
}

#[test]
fn processing_keeps_going_past_a_refused_message() {
    let m = ops(json!([
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "basic"}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "nope", "components": [{"id": "x", "component": "Text", "text": "t"}]}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "root", "component": "Text", "text": "hi"}]}},
    ]));
    let p = process(&m);
    assert_eq!(
        p.errors,
        vec!["Message 2: Surface not found for message: nope"]
    );
    assert_eq!(p.surfaces.len(), 1);
    assert!(
        p.surfaces[0].issues.is_empty(),
        "{:?}",
        p.surfaces[0].issues
    );
}

#[test]
fn statuses() {
    let p = process(&activity(
        json!({"status": "retrying", "attempt": 2, "maxAttempts": 3}),
    ));
    assert_eq!(
        p.status,
        Some(Status {
            status: "retrying".into(),
            text: "The surface was not valid; retrying (attempt 2 of 3)…".into()
        })
    );
    let p = process(&activity(json!({"status": "failed", "error": "bad JSON"})));
    assert_eq!(
        p.status.unwrap().text,
        "The surface could not be built: bad JSON"
    );
    let p = process(&activity(json!({"status": "building"})));
    assert_eq!(p.status.unwrap().text, "Building the surface…");
    assert_eq!(process(&activity(json!({"other": 1}))).errors.len(), 1);
}

#[test]
fn edits_lay_over_the_model_and_stay_bounded() {
    let mut edits = Vec::new();
    push_edit(&mut edits, "/form/name".into(), json!("A"));
    push_edit(&mut edits, "/form/name".into(), json!("Ad"));
    push_edit(&mut edits, "/agree".into(), json!(true));
    assert_eq!(edits.len(), 2);
    let model = apply_edits(
        &json!({"form": {"name": "", "age": 3}}),
        &edits,
        &super::LIMITS,
    );
    assert_eq!(
        model,
        json!({"form": {"name": "Ad", "age": 3}, "agree": true})
    );
    for i in 0..(MAX_EDITS + 10) {
        push_edit(&mut edits, format!("/k{i}"), json!(i));
    }
    assert_eq!(edits.len(), MAX_EDITS);
}

#[test]
fn clock_ids_and_picks() {
    let now = now_iso();
    assert!(
        now.len() == 20 && now.ends_with('Z') && now.as_bytes()[10] == b'T',
        "{now}"
    );
    assert_eq!(dom_id(&["s 1", "<b>", ""]), "a2ui-s_1-_b_-");
    assert_eq!(
        pick(Some(&json!("primary")), ("Button", "variant"), "default"),
        "primary"
    );
    assert_eq!(
        pick(
            Some(&json!("x\" onclick=\"")),
            ("Button", "variant"),
            "default"
        ),
        "default"
    );
    assert_eq!(hex_color(Some(&json!("#a1B2c3"))), Some("#a1B2c3".into()));
    assert_eq!(hex_color(Some(&json!("red; background: url(x)"))), None);
}

#[test]
fn number_fields_keep_what_is_half_typed() {
    use super::inputs::number_value;
    assert_eq!(number_value("3".into()), json!(3));
    assert_eq!(number_value(" -12 ".into()), json!(-12));
    assert_eq!(number_value("2.5".into()), json!(2.5));
    assert_eq!(number_value("1.".into()), json!("1."));
    assert_eq!(number_value("-".into()), json!("-"));
    assert_eq!(number_value("".into()), json!(""));
}

#[cfg(feature = "ssr")]
mod html {
    use leptos::prelude::*;
    use serde_json::{json, Value};

    use super::{activity, ops, surface};
    use crate::protocol::types::Message;
    use crate::ui::a2ui::A2uiSurface;

    fn render(m: Message) -> String {
        let owner = Owner::new();
        owner.set();
        let html = owner.with(|| {
            let on_action = Callback::new(|_: Value| {});
            view! { <A2uiSurface message=Signal::stored(m) on_action=on_action/> }.to_html()
        });
        drop(owner);
        html
    }

    #[test]
    fn every_catalog_component_renders_accessibly() {
        let html = render(surface(
            json!([
                {"id": "root", "component": "Column", "children": ["title", "row", "list", "card", "tabs", "div", "modal", "form"]},
                {"id": "title", "component": "Text", "text": {"path": "/title"}, "variant": "h2"},
                {"id": "row", "component": "Row", "children": ["icon", "img", "video", "audio"], "justify": "spaceBetween"},
                {"id": "icon", "component": "Icon", "name": "star"},
                {"id": "img", "component": "Image", "url": "https://img.test/a.png", "description": "A cat"},
                {"id": "video", "component": "Video", "url": "https://media.test/v.mp4"},
                {"id": "audio", "component": "AudioPlayer", "url": "https://media.test/a.mp3", "description": "Song"},
                {"id": "list", "component": "List", "children": {"componentId": "item", "path": "/items"}},
                {"id": "item", "component": "Text", "text": {"path": "name"}},
                {"id": "card", "component": "Card", "child": "cap"},
                {"id": "cap", "component": "Text", "text": "Caption", "variant": "caption"},
                {"id": "tabs", "component": "Tabs", "tabs": [{"title": "First", "child": "t1"}, {"title": "Second", "child": "t2"}]},
                {"id": "t1", "component": "Text", "text": "one"},
                {"id": "t2", "component": "Text", "text": "two"},
                {"id": "div", "component": "Divider"},
                {"id": "modal", "component": "Modal", "trigger": "open", "content": "t2"},
                {"id": "open", "component": "Button", "child": "open-text", "action": {"event": {"name": "noop"}}},
                {"id": "open-text", "component": "Text", "text": "Open"},
                {"id": "form", "component": "Column", "children": ["name", "agree", "color", "size", "when", "send"]},
                {"id": "name", "component": "TextField", "label": "Name", "value": {"path": "/form/name"}},
                {"id": "agree", "component": "CheckBox", "label": "I agree", "value": {"path": "/form/agree"}},
                {"id": "color", "component": "ChoicePicker", "label": "Color",
                 "options": [{"label": "Red", "value": "r"}, {"label": "Blue", "value": "b"}], "value": {"path": "/form/color"}},
                {"id": "size", "component": "Slider", "label": "Size", "max": 10, "value": {"path": "/form/size"}},
                {"id": "when", "component": "DateTimeInput", "label": "When", "enableDate": true, "value": "2026-01-16"},
                {"id": "send", "component": "Button", "child": "send-text", "variant": "primary",
                 "checks": [{"condition": {"call": "required", "args": {"value": {"path": "/form/email"}}}, "message": "Email is required"}],
                 "action": {"event": {"name": "submit", "context": {"name": {"path": "/form/name"}}}}},
                {"id": "send-text", "component": "Text", "text": "Send"},
            ]),
            json!({"title": "Order <b>now</b>", "items": [{"name": "x1"}, {"name": "x2"}],
                   "form": {"name": "Ada", "agree": true, "color": ["b"], "size": 4}}),
        ));
        for needle in [
            r#"role="heading""#,
            r#"aria-level="2""#,
            "Order &lt;b&gt;now&lt;/b&gt;",
            r#"role="img" aria-label="star""#,
            "Load image",
            "Load video from media.test",
            "Load audio from media.test",
            r#"role="list""#,
            r#"role="listitem""#,
            "x1",
            "x2",
            r#"role="tablist""#,
            r#"role="tab""#,
            r#"aria-selected="true""#,
            r#"role="tabpanel""#,
            "<hr",
            "Open",
            ">Name<",
            r#"type="checkbox""#,
            ">I agree<",
            "<legend",
            r#"type="radio""#,
            r#"type="range""#,
            r#"type="date""#,
            "Email is required",
            "disabled",
            r#"value="Ada""#,
            r#"value="2026-01-16""#,
            r#"value="4""#,
            "--a2ui-primary: #112233",
            "Helper",
        ] {
            assert!(html.contains(needle), "missing {needle:?} in {html}");
        }
        assert!(!html.contains("<b>now"), "payload text is never HTML");
        assert!(!html.contains("Unsupported"), "{html}");
    }

    #[test]
    fn problems_are_shown_in_place() {
        let html = render(surface(
            json!([
                {"id": "root", "component": "Column", "children": ["ok", "ghost", "widget", "bad", "loop"]},
                {"id": "ok", "component": "Text", "text": "still here"},
                {"id": "widget", "component": "Widget", "x": 1},
                {"id": "bad", "component": "Image", "url": "javascript:alert(1)"},
                {"id": "loop", "component": "Card", "child": "root"},
            ]),
            json!({}),
        ));
        for needle in [
            "still here",
            "Missing component 'ghost'",
            "Unsupported component 'Widget'",
            "Image not shown",
            "contains itself",
            "Dangling reference",
            "Circular reference detected",
        ] {
            assert!(html.contains(needle), "missing {needle:?} in {html}");
        }
        assert!(
            !html.contains("src=\"javascript"),
            "a refused URL is never a source"
        );
    }

    #[test]
    fn lifecycle_and_refused_messages() {
        let html = render(activity(
            json!({"status": "building", "progressTokens": 40}),
        ));
        assert!(
            html.contains(r#"role="status""#)
                && html.contains("Building the surface… (40 tokens so far)"),
            "{html}"
        );
        let html = render(ops(json!([{"version": "v0.8", "beginRendering": {}}])));
        assert!(html.contains("Message 1:"), "{html}");
    }
}

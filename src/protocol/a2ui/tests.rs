//! Unit tests of the A2UI processor: every bound of [`A2uiLimits`] exceeded on purpose, JSON
//! Pointer edge cases, lenient mode, incremental updates, bindings, functions and user actions.
//! The official suites run in `tests/a2ui_conformance.rs`.

use serde_json::{json, Value};

use super::binding::{text, Scope};
use super::functions::{format_date, format_number};
use super::pointer::{get_path, parse, remove, resolve_path, set};
use super::*;

fn create(id: &str) -> Value {
    json!({"version": "v0.9", "createSurface": {"surfaceId": id, "catalogId": "basic"}})
}

fn components(id: &str, list: Value) -> Value {
    json!({"version": "v0.9", "updateComponents": {"surfaceId": id, "components": list}})
}

fn data(id: &str, path: &str, value: Value) -> Value {
    json!({"version": "v0.9", "updateDataModel": {"surfaceId": id, "path": path, "value": value}})
}

fn with_limits(strict: bool, f: impl FnOnce(&mut A2uiLimits)) -> Processor {
    let mut limits = A2uiLimits::DEFAULT;
    f(&mut limits);
    Processor::new(ProcessorOptions {
        strict,
        fallback_to_basic: true,
        limits,
    })
}

fn limit_error(p: &mut Processor, msg: &Value) -> String {
    let e = p.process(msg).expect_err("the bound should refuse this");
    assert_eq!(e.category, Category::Limit, "{e}");
    e.message
}

#[test]
fn defaults() {
    let l = A2uiLimits::default();
    assert_eq!(
        (
            l.max_surfaces,
            l.max_components,
            l.max_depth,
            l.max_call_depth
        ),
        (32, 1000, 32, 5)
    );
    assert_eq!(
        (l.max_data_bytes, l.max_data_nodes, l.max_json_depth),
        (512 * 1024, 20_000, 32)
    );
    assert_eq!(
        (l.max_component_bytes, l.max_string_len, l.max_id_len),
        (64 * 1024, 64 * 1024, 256)
    );
    assert_eq!((l.max_operations, l.max_list_items), (1000, 200));
}

#[test]
fn bound_surfaces() {
    let mut p = with_limits(false, |l| l.max_surfaces = 2);
    p.process(&create("a")).unwrap();
    p.process(&create("b")).unwrap();
    assert!(limit_error(&mut p, &create("c")).contains("more than 2 surfaces"));
    // Deleting one makes room again.
    p.process(&json!({"version": "v0.9", "deleteSurface": {"surfaceId": "a"}}))
        .unwrap();
    p.process(&create("c")).unwrap();
}

#[test]
fn bound_components_per_message_and_per_surface() {
    let mut p = with_limits(false, |l| l.max_components = 3);
    p.process(&create("s")).unwrap();
    let many: Vec<Value> = (0..4)
        .map(|i| json!({"id": format!("t{i}"), "component": "Text", "text": "x"}))
        .collect();
    assert!(limit_error(&mut p, &components("s", json!(many))).contains("more than 3"));
    p.process(&components("s", json!(many[..2]))).unwrap();
    let more = json!([{"id": "u1", "component": "Text", "text": "x"}, {"id": "u2", "component": "Text", "text": "x"}]);
    assert!(limit_error(&mut p, &components("s", more)).contains("would have 4 components"));
    assert_eq!(
        p.surface("s").unwrap().components.len(),
        2,
        "a refused message changes nothing"
    );
}

#[test]
fn bound_tree_depth_strict_and_lenient() {
    let chain = |n: usize| -> Value {
        let mut list = vec![json!({"id": "root", "component": "Card", "child": "c1"})];
        for i in 1..n {
            list.push(
                json!({"id": format!("c{i}"), "component": "Card", "child": format!("c{}", i + 1)}),
            );
        }
        list.push(json!({"id": format!("c{n}"), "component": "Text", "text": "leaf"}));
        json!(list)
    };
    let mut p = with_limits(true, |l| l.max_depth = 5);
    p.process(&create("s")).unwrap();
    assert!(limit_error(&mut p, &components("s", chain(8))).contains("nested deeper than 5"));
    p.process(&components("s", chain(3))).unwrap();
    // Lenient: kept, reported; a chain of 999 costs a loop, not the stack.
    let mut p = with_limits(false, |_| {});
    p.process(&create("s")).unwrap();
    p.process(&components("s", chain(999))).unwrap();
    let issues = p.surface("s").unwrap().issues(&p.options.limits);
    assert!(
        issues
            .iter()
            .any(|i| i.message.contains("nested deeper than 32")),
        "{issues:?}"
    );
}

#[test]
fn bound_call_depth() {
    let mut nested = json!({"call": "not", "args": {"value": true}});
    for _ in 0..6 {
        nested = json!({"call": "not", "args": {"value": nested}});
    }
    let msg = components(
        "s",
        json!([{"id": "root", "component": "CheckBox", "label": "x", "value": nested}]),
    );
    let mut p = Processor::new(ProcessorOptions::STRICT);
    p.process(&create("s")).unwrap();
    let e = p.process(&msg).unwrap_err();
    assert_eq!(e.category, Category::Recursion);
    assert!(e
        .message
        .contains("functionCall depth 7 exceeds the maximum of 5"));
    // Lenient keeps it and says why; evaluation stops at the bound (null, not a stack overflow).
    let mut p = Processor::default();
    p.process(&create("s")).unwrap();
    p.process(&msg).unwrap();
    let s = p.surface("s").unwrap();
    assert!(s
        .component_issues("root", &p.options.limits)
        .iter()
        .any(|m| m.contains("functionCall depth")));
    let value = &s.components["root"].value["value"];
    assert_eq!(
        super::binding::resolve(value, &Scope::root(&s.data_model)),
        Value::Null
    );
}

#[test]
fn bound_data_model_bytes_nodes_depth_and_strings() {
    let mut p = with_limits(false, |l| {
        l.max_data_bytes = 1000;
        l.max_data_nodes = 50;
        l.max_json_depth = 4;
        l.max_string_len = 100;
    });
    p.process(&create("s")).unwrap();
    p.process(&data("s", "/a", json!("x".repeat(90)))).unwrap();
    assert!(
        limit_error(&mut p, &data("s", "/b", json!("y".repeat(101)))).contains("longer than 100")
    );
    let wide: Vec<Value> = (0..60).map(|i| json!(i)).collect();
    assert!(limit_error(&mut p, &data("s", "/b", json!(wide))).contains("more than 50 values"));
    assert!(limit_error(&mut p, &data("s", "/b", json!([[[[[1]]]]]))).contains("deeper than 4"));
    assert!(limit_error(&mut p, &data("s", "/a/b/c/d/e", json!(1))).contains("deeper than 4"));
    // Many writes each within the bound still cannot grow the model past it.
    let mut refused = false;
    for i in 0..20 {
        if p.process(&data("s", &format!("/k{i}"), json!("z".repeat(90))))
            .is_err()
        {
            refused = true;
            break;
        }
    }
    assert!(refused, "the model's total size is bounded");
    assert!(
        serde_json::to_string(&p.surface("s").unwrap().data_model)
            .unwrap()
            .len()
            <= 1000
    );
}

#[test]
fn bound_component_size_ids_and_operations() {
    let mut p = with_limits(false, |l| {
        l.max_component_bytes = 200;
        l.max_id_len = 10;
        l.max_operations = 3;
    });
    p.process(&create("s")).unwrap();
    let big = components(
        "s",
        json!([{"id": "root", "component": "Text", "text": "x".repeat(300)}]),
    );
    assert!(limit_error(&mut p, &big).contains("larger than 200 bytes"));
    assert!(limit_error(&mut p, &create("a-very-long-surface-id")).contains("longer than 10"));
    let long_id = components(
        "s",
        json!([{"id": "x".repeat(11), "component": "Text", "text": "x"}]),
    );
    assert!(limit_error(&mut p, &long_id).contains("longer than 10"));
    let ops = json!([create("a"), create("b"), create("c"), create("d")]);
    let e = p.process_all(&ops).unwrap_err();
    assert_eq!(e.category, Category::Limit);
    assert!(
        p.surface("a").is_none(),
        "a list over the bound is refused before any of it runs"
    );
}

#[test]
fn hostile_messages_never_panic() {
    let mut p = Processor::default();
    let inputs = [
        json!(null),
        json!("text"),
        json!([1, 2]),
        json!({"version": 9}),
        json!({"version": "v0.9"}),
        json!({"version": "v0.9", "createSurface": "s"}),
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "basic", "theme": 3}}),
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": []}}),
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [3]}}),
        json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "no-slash", "value": 1}}),
        json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/a/~2", "value": 1}}),
        json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": 5}}),
        json!({"version": "v0.9", "deleteSurface": {"surfaceId": "nope"}}),
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "basic", "extra": 1}}),
    ];
    p.process(&create("s")).unwrap();
    for i in &inputs {
        assert!(p.process(i).is_err(), "{i}");
    }
    // Arrays: indexes only up to the end.
    p.process(&data("s", "/list", json!([]))).unwrap();
    assert!(p.process(&data("s", "/list/5", json!(1))).is_err());
    p.process(&data("s", "/list/0", json!(1))).unwrap();
    p.process(&data("s", "/list/-", json!(2))).unwrap();
    assert_eq!(p.surface("s").unwrap().data_model["list"], json!([1, 2]));
}

#[test]
fn pointers() {
    assert_eq!(parse("/a~1b/c~0d").unwrap(), vec!["a/b", "c~d"]);
    assert!(parse("/").unwrap().is_empty());
    assert!(parse("").unwrap().is_empty());
    assert_eq!(parse("/items/").unwrap(), vec!["items"]);
    assert!(parse("x").is_err());
    let mut m = json!({});
    set(
        &mut m,
        &parse("/user/addresses/0/city").unwrap(),
        json!("Paris"),
    )
    .unwrap();
    assert_eq!(m, json!({"user": {"addresses": [{"city": "Paris"}]}}));
    assert_eq!(
        get_path(&m, "/user/addresses/0/city"),
        Some(&json!("Paris"))
    );
    assert_eq!(get_path(&m, "/user/addresses/01/city"), None);
    set(&mut m, &parse("/user/name").unwrap(), json!("A")).unwrap();
    set(&mut m, &parse("/user/name/first").unwrap(), json!("B")).unwrap();
    assert_eq!(
        m["user"]["name"],
        json!({"first": "B"}),
        "a scalar in the way becomes a container"
    );
    remove(&mut m, &parse("/user/addresses/0").unwrap());
    assert_eq!(m["user"]["addresses"], json!([]));
    remove(&mut m, &parse("/nothing/here").unwrap());
    remove(&mut m, &[]);
    assert_eq!(m, json!({}));
    assert_eq!(resolve_path("name", Some("/items/2")), "/items/2/name");
    assert_eq!(resolve_path("/abs", Some("/items/2")), "/abs");
    assert_eq!(resolve_path("", Some("/items/2/")), "/items/2");
}

#[test]
fn root_updates_and_removal() {
    let mut p = Processor::default();
    p.process(&create("s")).unwrap();
    p.process(
        &json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "value": {"a": 1}}}),
    )
    .unwrap();
    assert_eq!(p.surface("s").unwrap().data_model, json!({"a": 1}));
    p.process(&json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/a"}}))
        .unwrap();
    assert_eq!(p.surface("s").unwrap().data_model, json!({}));
}

#[test]
fn lenient_keeps_invalid_components_and_reports_them() {
    let mut p = Processor::default();
    p.process(&create("s")).unwrap();
    let change = p
        .process(&components(
            "s",
            json!([
                {"id": "root", "component": "Column", "children": ["t", "gone"]},
                {"id": "t", "component": "Text"},
                {"id": "w", "component": "Widget"},
            ]),
        ))
        .unwrap();
    assert_eq!(
        change,
        Change::Components {
            surface: "s".into(),
            ids: vec!["root".into(), "t".into(), "w".into()]
        }
    );
    let issues = p.surface("s").unwrap().issues(&p.options.limits);
    let text: Vec<String> = issues
        .iter()
        .map(|i| format!("{:?}: {}", i.component, i.message))
        .collect();
    assert!(
        text.iter()
            .any(|t| t.contains("Dangling reference") && t.contains("gone")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|t| t.contains("Orphaned component 'w'")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.contains("Some(\"t\")") && t.contains("requires 'text'")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.contains("Unknown component 'Widget'")),
        "{text:?}"
    );
}

#[test]
fn unknown_catalog_falls_back_with_a_warning() {
    let mut p = Processor::default();
    p.process(
        &json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "acme:ui"}}),
    )
    .unwrap();
    let s = p.surface("s").unwrap();
    assert_eq!(*s.catalog, Catalog::Basic);
    assert!(s.warnings[0].contains("Catalog not found: acme:ui"));
    let mut strict = Processor::new(ProcessorOptions::STRICT);
    let e = strict.process(
        &json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "acme:ui"}}),
    );
    assert_eq!(e.unwrap_err().category, Category::Catalog);
    // The id the official middleware sends is the basic catalog.
    strict
        .process(
            &json!({"version": "v0.9", "createSurface": {"surfaceId": "m",
        "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}}),
        )
        .unwrap();
}

#[test]
fn incremental_updates_report_only_what_changed() {
    let mut p = Processor::default();
    p.process(&create("s")).unwrap();
    p.process(&components(
        "s",
        json!([
            {"id": "root", "component": "Column", "children": ["a", "b"]},
            {"id": "a", "component": "Text", "text": "A"},
            {"id": "b", "component": "Text", "text": "B"},
        ]),
    ))
    .unwrap();
    let change = p
        .process(&components(
            "s",
            json!([
                {"id": "a", "component": "Text", "text": "A"},
                {"id": "b", "text": "B2"},
            ]),
        ))
        .unwrap();
    assert_eq!(
        change,
        Change::Components {
            surface: "s".into(),
            ids: vec!["b".into()]
        }
    );
    let b = &p.surface("s").unwrap().components["b"];
    assert_eq!((b.kind.as_str(), &b.value["text"]), ("Text", &json!("B2")));
    let strict_dupe = {
        let mut p = Processor::new(ProcessorOptions::STRICT);
        p.process(&create("s")).unwrap();
        p.process(&components(
            "s",
            json!([
                {"id": "root", "component": "Text", "text": "1"},
                {"id": "root", "component": "Text", "text": "2"},
            ]),
        ))
        .unwrap_err()
    };
    assert!(strict_dupe
        .message
        .contains("Duplicate component id 'root'"));
}

#[test]
fn valid_basic_surface_passes_strict() {
    let mut p = Processor::new(ProcessorOptions::STRICT);
    p.process(&create("s")).unwrap();
    p.process(&components("s", json!([
        {"id": "root", "component": "Column", "children": ["list", "tabs", "form", "ok"]},
        {"id": "list", "component": "List", "children": {"componentId": "item", "path": "/items"}},
        {"id": "item", "component": "Text", "text": {"path": "name"}, "variant": "body"},
        {"id": "tabs", "component": "Tabs", "tabs": [{"title": "One", "child": "one"}]},
        {"id": "one", "component": "Icon", "name": "star"},
        {"id": "form", "component": "TextField", "label": "Name", "value": {"path": "/form/name"},
         "checks": [{"condition": {"call": "required", "args": {"value": {"path": "/form/name"}}}, "message": "Required"}]},
        {"id": "ok", "component": "Button", "child": "ok-text", "variant": "primary",
         "action": {"event": {"name": "submit", "context": {"name": {"path": "/form/name"}, "fixed": 3}}}},
        {"id": "ok-text", "component": "Text", "text": {"call": "formatString", "args": {"value": "Send ${/form/name}"}}},
    ]))).unwrap();
}

#[test]
fn bindings_and_functions() {
    let model = json!({"user": {"name": "Ada", "n": 3}, "items": [{"name": "x"}], "d": "2026-01-16T14:30:00Z"});
    let root = Scope::root(&model);
    assert_eq!(text(&json!({"path": "/user/name"}), &root), "Ada");
    let item = Scope {
        model: &model,
        base: Some("/items/0"),
    };
    assert_eq!(text(&json!({"path": "name"}), &item), "x");
    let fs = json!({"call": "formatString", "args": {"value": "Hi ${/user/name}, \\${literal} ${now()}"}});
    assert_eq!(text(&fs, &root), "Hi Ada, ${literal} ");
    let plural = json!({"call": "pluralize", "args": {"value": {"path": "/user/n"}, "one": "item", "other": "items"}});
    assert_eq!(text(&plural, &root), "items");
    assert_eq!(format_number(1234567.891, None, true), "1,234,567.89");
    assert_eq!(format_number(-5.0, Some(1.0), false), "-5.0");
    assert_eq!(
        format_date("2026-01-16T14:30:00Z", "EEEE, MMM dd, yyyy h:mm a"),
        "Friday, Jan 16, 2026 2:30 PM"
    );
    assert_eq!(format_date("soon", "yyyy"), "soon");
    let check = json!({"call": "and", "args": {"values": [
        {"call": "email", "args": {"value": "a@b.io"}},
        {"call": "length", "args": {"value": {"path": "/user/name"}, "min": 2}},
        {"call": "regex", "args": {"value": "555-1234", "pattern": "^\\d{3}-\\d{4}$"}}]}});
    assert_eq!(super::binding::resolve(&check, &root), json!(true));
    let open = json!({"call": "openUrl", "args": {"url": "https://x.test"}});
    assert_eq!(super::binding::resolve(&open, &root), Value::Null);
}

#[test]
fn user_action_resolves_its_context() {
    let mut p = Processor::default();
    p.process(&create("s")).unwrap();
    p.process(&components("s", json!([
        {"id": "root", "component": "List", "children": {"componentId": "row", "path": "/items"}},
        {"id": "row", "component": "Button", "child": "t",
         "action": {"event": {"name": "pick", "context": {"id": {"path": "id"}, "who": {"path": "/user"}, "n": 1, "missing": {"path": "/nope"}}}}},
        {"id": "t", "component": "Text", "text": {"path": "label"}},
    ]))).unwrap();
    p.process(&data(
        "s",
        "/",
        json!({"user": "ada", "items": [{"id": "a"}, {"id": "b"}]}),
    ))
    .unwrap();
    let s = p.surface("s").unwrap();
    let action = user_action(s, "row", Some("/items/1"), "2026-11-24T16:00:00.000Z").unwrap();
    assert_eq!(
        action,
        json!({"name": "pick", "surfaceId": "s", "sourceComponentId": "row",
               "context": {"id": "b", "who": "ada", "n": 1, "missing": null},
               "timestamp": "2026-11-24T16:00:00.000Z"})
    );
    assert_eq!(
        action::forwarded_props(action.clone())["a2uiAction"]["userAction"],
        action
    );
    assert!(user_action(s, "t", None, "x").is_err());
    assert!(user_action(s, "nope", None, "x").is_err());
}

#[test]
fn activity_content() {
    let ops = json!({"a2ui_operations": [create("s")]});
    assert!(
        matches!(surface_content(ops.as_object().unwrap()), SurfaceContent::Operations(o) if o.len() == 1)
    );
    let building = json!({"status": "building", "progressTokens": 40});
    assert!(matches!(
        surface_content(building.as_object().unwrap()),
        SurfaceContent::Status {
            status: "building",
            ..
        }
    ));
    assert_eq!(
        surface_content(json!({"x": 1}).as_object().unwrap()),
        SurfaceContent::Unknown
    );
}

#[test]
fn inspect_reports_surfaces() {
    use crate::protocol::inspect::{inspect, parse_recording};
    let ops = json!([
        create("form"),
        components(
            "form",
            json!([
                {"id": "root", "component": "Column", "children": ["name", "missing"]},
                {"id": "name", "component": "TextField", "label": "Name", "value": {"path": "/name"}},
            ])
        ),
        data("form", "/name", json!("Ada")),
        json!({"version": "v0.9", "updateDataModel": {"surfaceId": "other", "value": 1}}),
    ]);
    let events = json!([
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "a2ui-surface-1", "activityType": "a2ui-surface",
         "content": {"status": "building"}, "replace": true},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "a2ui-surface-2", "activityType": "a2ui-surface",
         "content": {"a2ui_operations": ops}, "replace": true},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]);
    let report = inspect(parse_recording(events.to_string().into_bytes()).unwrap());
    let surfaces = report["a2uiSurfaces"].as_array().expect("a2uiSurfaces");
    assert_eq!(
        surfaces[0],
        json!({"messageId": "a2ui-surface-1", "status": "building"})
    );
    let s = &surfaces[1];
    assert_eq!(
        (&s["surfaceId"], &s["components"], &s["dataModelBytes"]),
        (&json!("form"), &json!(2), &json!(14))
    );
    let errors: Vec<&str> = s["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("message 3: IntegrityError: Surface not found for message: other")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("Dangling reference") && e.contains("missing")),
        "{errors:?}"
    );
    // A recording without surfaces has no such key.
    let plain = json!([{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}, {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}]);
    assert!(
        inspect(parse_recording(plain.to_string().into_bytes()).unwrap())
            .get("a2uiSurfaces")
            .is_none()
    );
}

/// JSON built from A2UI's own vocabulary, so random input reaches deep into the processor.
fn arb_a2ui() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let keys = prop::sample::select(vec![
        "version",
        "createSurface",
        "updateComponents",
        "updateDataModel",
        "deleteSurface",
        "surfaceId",
        "catalogId",
        "components",
        "id",
        "component",
        "children",
        "child",
        "path",
        "value",
        "text",
        "action",
        "event",
        "context",
        "call",
        "args",
        "tabs",
        "componentId",
        "checks",
        "condition",
        "theme",
        "primaryColor",
        "root",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..5).prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "v0.9",
            "s",
            "root",
            "basic",
            "Text",
            "Column",
            "Card",
            "Button",
            "List",
            "/a",
            "/a/0",
            "a",
            "~",
            "/-",
            "formatString",
            "not",
            "and",
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..6).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

    /// Whatever arrives, the processor answers (strict or lenient) and every surface it keeps
    /// stays within its bounds, can be judged, rendered as text and acted on.
    #[test]
    fn random_messages_never_panic(msgs in proptest::collection::vec(arb_a2ui(), 0..12)) {
        for options in [ProcessorOptions::RENDERER, ProcessorOptions::STRICT] {
            let mut p = Processor::new(options);
            p.process(&create("s")).unwrap();
            let _ = p.process_each(&msgs);
            for s in p.surfaces() {
                let _ = s.issues(&options.limits);
                let scope = Scope::root(&s.data_model);
                for c in s.components.values() {
                    for v in c.value.values() {
                        let _ = text(v, &scope);
                    }
                    let _ = user_action(s, &c.id, Some("/a/0"), "t");
                }
            }
            let _ = p.renderer_data_model();
        }
    }
}

//! Tests of the schema form model and its value edits (pure, native).
use serde_json::{json, Value};

use super::check::{check, count};
use super::model::{build, Kind, Node};
use super::values::*;

/// The Dojo's `generate_task_steps` arguments schema, with its third status value.
fn steps_schema() -> Value {
    json!({"type": "object", "properties": {"steps": {"type": "array", "items": {
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "status": {"type": "string", "enum": ["enabled", "disabled", "executing"]}},
        "required": ["description", "status"]}}},
        "required": ["steps"]})
}

fn children(n: &Node) -> &[Node] {
    match &n.kind {
        Kind::Group { children }
        | Kind::List {
            items: children, ..
        } => children,
        other => panic!("not a group: {other:?}"),
    }
}

fn note(n: &Node) -> String {
    match &n.kind {
        Kind::Raw { note, .. } => note.clone().unwrap_or_default(),
        other => panic!("not raw: {other:?}"),
    }
}

#[test]
fn scalars_become_switches_selects_and_inputs() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "title": "Your name", "description": "Full name", "minLength": 2},
        "size": {"type": "integer", "minimum": 1, "maximum": 9},
        "ratio": {"type": "number"},
        "ok": {"type": "boolean"},
        "color": {"enum": ["red", "green"]},
        "tier": {"oneOf": [{"const": "s"}, {"const": "l"}]},
        "when": {"type": "string", "format": "date"},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Note"}},
        "required": ["name", "color"]});
    let form = build(
        &schema,
        &json!({"name": "Ada", "ok": true, "color": "green"}),
    );
    let c = children(&form);
    assert_eq!(c.len(), 8);
    assert_eq!(c[0].field.label, "Your name");
    assert_eq!(c[0].field.help.as_deref(), Some("Full name"));
    assert!(c[0].field.required);
    assert!(
        matches!(&c[0].kind, Kind::Input { kind: InputKind::Text, text, min_len: Some(2), .. } if text == "Ada")
    );
    assert!(matches!(
        c[1].kind,
        Kind::Input {
            kind: InputKind::Integer,
            min: Some(1.0),
            max: Some(9.0),
            ..
        }
    ));
    assert!(matches!(
        c[2].kind,
        Kind::Input {
            kind: InputKind::Number,
            ..
        }
    ));
    assert_eq!(c[3].kind, Kind::Switch { on: true });
    assert_eq!(
        c[4].kind,
        Kind::Select {
            options: vec![json!("red"), json!("green")],
            chosen: Some(1)
        }
    );
    assert!(matches!(&c[5].kind, Kind::Select { options, chosen: None } if options.len() == 2));
    assert!(matches!(
        c[6].kind,
        Kind::Input {
            kind: InputKind::Date,
            ..
        }
    ));
    assert_eq!(c[7].field.label, "Note");
    assert!(matches!(
        c[7].kind,
        Kind::Input {
            kind: InputKind::Text,
            ..
        }
    ));
    // Ids are unique.
    let mut ids: Vec<usize> = c.iter().map(|n| n.field.id).collect();
    ids.dedup();
    assert_eq!(ids.len(), 8);
}

#[test]
fn hitl_steps_are_one_checkbox_each_and_switching_one_off_edits_its_status() {
    let mut args = json!({"steps": [
        {"description": "Fuel the rocket", "status": "enabled"},
        {"description": "Launch", "status": "disabled"},
        {"description": "Wave", "status": "executing"}]});
    let form = build(&steps_schema(), &args);
    let list = &children(&form)[0];
    let Kind::Checklist { toggle, items } = &list.kind else {
        panic!("{:?}", list.kind)
    };
    assert_eq!(toggle.key, "status");
    assert_eq!(
        (toggle.on.clone(), toggle.off.clone()),
        (json!("enabled"), json!("disabled"))
    );
    let seen: Vec<(&str, bool)> = items
        .iter()
        .map(|i| (i.label.as_str(), i.checked))
        .collect();
    assert_eq!(
        seen,
        [("Fuel the rocket", true), ("Launch", false), ("Wave", true)]
    );
    assert!(switch_item(&mut args, &list.field.path, 0, toggle, false));
    assert!(switch_item(&mut args, &list.field.path, 1, toggle, true));
    assert_eq!(
        args["steps"][0],
        json!({"description": "Fuel the rocket", "status": "disabled"})
    );
    assert_eq!(args["steps"][1]["status"], "enabled");
}

#[test]
fn two_value_enums_and_booleans_make_checklists_too() {
    let two = json!({"type": "array", "items": {"type": "object", "properties": {
        "title": {"type": "string"}, "state": {"enum": ["off", "on"]}}}});
    let Kind::Checklist { toggle, items } =
        build(&two, &json!([{"title": "A", "state": "on"}])).kind
    else {
        panic!()
    };
    assert_eq!((toggle.on, toggle.off), (json!("on"), json!("off")));
    assert!(items[0].checked);
    let boolean = json!({"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "n": {"type": "integer"}, "done": {"type": "boolean"}}}});
    let Kind::Checklist { toggle, items } = build(
        &boolean,
        &json!([{"name": "x", "n": 1}, {"name": "", "done": true}]),
    )
    .kind
    else {
        panic!()
    };
    assert_eq!(toggle.key, "done");
    assert!(!items[0].checked);
    assert_eq!(items[1].label, "Item 2");
    // Without a label field it is an editable list.
    let unnamed = json!({"type": "array", "items": {"type": "object", "properties": {
        "done": {"type": "boolean"}}}});
    assert!(matches!(
        build(&unnamed, &json!([{"done": true}])).kind,
        Kind::List { .. }
    ));
}

#[test]
fn lists_of_objects_and_scalars_add_and_remove_items() {
    let schema = json!({"type": "object", "properties": {
        "people": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "age": {"type": "integer", "default": 30}}}},
        "tags": {"type": "array", "items": {"type": "string"}}}});
    let mut v = json!({"people": [{"name": "Ada"}], "tags": ["a", "b"]});
    let form = build(&schema, &v);
    let (people, tags) = (&children(&form)[0], &children(&form)[1]);
    assert_eq!(children(people)[0].field.label, "People 1");
    assert!(matches!(children(people)[0].kind, Kind::Group { .. }));
    assert_eq!(children(tags)[1].field.label, "Tag 2");
    assert!(matches!(
        children(tags)[1].kind,
        Kind::Input { in_list: true, .. }
    ));
    let Kind::List { item_schema, .. } = &people.kind else {
        panic!()
    };
    assert!(add_item(&mut v, &people.field.path, item_schema));
    assert_eq!(v["people"][1], json!({"name": "", "age": 30}));
    assert!(remove_item(&mut v, &tags.field.path, 0));
    assert_eq!(v["tags"], json!(["b"]));
    assert!(!remove_item(&mut v, &tags.field.path, 5));
    // A missing list is created by its first item.
    let mut empty = json!({});
    assert!(add_item(
        &mut empty,
        &[Seg::Key("tags".into())],
        &json!({"type": "string"})
    ));
    assert_eq!(empty, json!({"tags": [""]}));
}

#[test]
fn edits_set_typed_values_and_checks_refuse_what_does_not_fit() {
    let schema = json!({"type": "object", "properties": {
        "date": {"type": "string", "format": "date", "title": "Report date"},
        "n": {"type": "number", "maximum": 10},
        "inner": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}},
        "required": ["date"]});
    let mut v = json!({});
    let form = build(&schema, &v);
    let problems = check(&form, &v);
    assert_eq!(
        problems,
        [(
            "/date".into(),
            "Report date".into(),
            "This field is required.".into()
        )]
    );
    let date = &children(&form)[0].field.path;
    let n = &children(&form)[1].field.path;
    assert!(set(
        &mut v,
        date,
        parse_input(InputKind::Date, "2026-12-01", false).unwrap()
    ));
    assert!(set(
        &mut v,
        n,
        parse_input(InputKind::Number, "12", false).unwrap()
    ));
    assert_eq!(v, json!({"date": "2026-12-01", "n": 12}));
    assert_eq!(check(&form, &v)[0].2, "Enter 10 or less.");
    // The optional group is checked only once it exists.
    assert!(set(&mut v, n, None));
    assert!(check(&form, &v).is_empty());
    assert!(set(
        &mut v,
        &[Seg::Key("inner".into()), Seg::Key("y".into())],
        Some(json!(1))
    ));
    assert_eq!(check(&form, &v)[0].0, "/inner/x");

    assert_eq!(
        parse_input(InputKind::Integer, "1.5", false),
        Err("Enter a whole number.".into())
    );
    assert_eq!(
        parse_input(InputKind::Number, "1e999", false),
        Err("Enter a number.".into())
    );
    assert_eq!(parse_input(InputKind::Number, " ", false), Ok(None));
    assert_eq!(
        parse_input(InputKind::Number, "", true),
        Err("Enter a value.".into())
    );
    assert_eq!(parse_input(InputKind::Text, "", true), Ok(Some(json!(""))));
    assert!(parse_input(InputKind::Json, "{", false)
        .unwrap_err()
        .starts_with("Not valid JSON"));
    // Paths through the wrong type change nothing.
    let mut s = json!({"a": "text"});
    assert!(!set(
        &mut s,
        &[Seg::Key("a".into()), Seg::Key("b".into())],
        Some(json!(1))
    ));
    assert!(!set(
        &mut s,
        &[Seg::Key("l".into()), Seg::Index(3)],
        Some(json!(1))
    ));
    assert_eq!(s, json!({"a": "text", "l": null}));
    assert_eq!(
        pointer(&[Seg::Key("a/b~".into()), Seg::Index(2)]),
        "/a~1b~0/2"
    );
}

#[test]
fn values_without_a_schema_get_an_inferred_one() {
    let args = json!({"paths": ["/tmp/a", "/tmp/b"], "force": false, "n": 2, "opts": {"x": 1.5},
        "steps": [{"description": "A", "status": "enabled"}], "nothing": null, "mixed": [1, "a"]});
    let schema = infer_schema(&args);
    assert_eq!(
        schema["properties"]["paths"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    let form = build(&schema, &args);
    let c = children(&form);
    assert!(matches!(c[0].kind, Kind::List { .. }));
    assert_eq!(c[1].kind, Kind::Switch { on: false });
    assert!(matches!(
        c[2].kind,
        Kind::Input {
            kind: InputKind::Integer,
            ..
        }
    ));
    assert!(matches!(c[3].kind, Kind::Group { .. }));
    assert!(matches!(c[4].kind, Kind::List { .. }));
    assert!(note(&c[5]).contains("no schema"));
    // A mixed list: each item is edited as what it is.
    assert!(matches!(
        children(&c[6])[0].kind,
        Kind::Input {
            kind: InputKind::Integer,
            ..
        }
    ));
    assert!(matches!(
        children(&c[6])[1].kind,
        Kind::Input {
            kind: InputKind::Text,
            ..
        }
    ));
    // `{"type": "object"}` without properties is read from the value too.
    let edited = build(&json!({"type": "object"}), &json!({"paths": ["x"]}));
    assert!(matches!(children(&edited)[0].kind, Kind::List { .. }));
}

#[test]
fn property_names_become_labels() {
    let schema = json!({"type": "object", "properties": {
        "risk_level": {"type": "string"}, "editedArgs": {"type": "string"},
        "userID": {"type": "string"}, "x-y": {"type": "string"}, "_": {"type": "string"},
        "paths": {"type": "array", "items": {"type": "string"}}}});
    let form = build(&schema, &json!({"paths": ["a"]}));
    let labels: Vec<&str> = children(&form)
        .iter()
        .map(|n| n.field.label.as_str())
        .collect();
    assert_eq!(
        labels,
        ["Risk level", "Edited args", "User ID", "X y", "_", "Paths"]
    );
    assert_eq!(children(&children(&form)[5])[0].field.label, "Path 1");
}

#[test]
fn defaults_fill_an_empty_answer() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "string", "default": "x"}, "b": {"type": "boolean"}, "c": {"type": "integer"}}});
    let mut v = json!({});
    apply_defaults(&schema, &mut v, 0);
    assert_eq!(v, json!({"a": "x", "b": false}));
}

#[test]
fn unsupported_schemas_and_mismatched_values_are_edited_as_json() {
    let schema = json!({"type": "object", "properties": {
        "r": {"$ref": "#"},
        "o": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "all": {"allOf": [{"type": "string"}]},
        "s": {"type": "string"},
        "big": {"enum": (0..300).collect::<Vec<_>>()},
        "off": {"enum": ["a", "b"]}}});
    let form = build(
        &schema,
        &json!({"s": {"not": "a string"}, "off": "c", "r": {"k": 1}}),
    );
    let c = children(&form);
    assert!(note(&c[0]).contains("$ref"));
    assert!(matches!(&c[0].kind, Kind::Raw { text, .. } if text.contains("\"k\": 1")));
    assert!(note(&c[1]).contains("oneOf"));
    assert!(note(&c[2]).contains("allOf"));
    assert!(note(&c[3]).contains("not of type string"));
    assert!(note(&c[4]).contains("options"));
    assert!(note(&c[5]).contains("not one of the options"));
    assert!(note(&build(&json!(true), &json!(1))).contains("not an object"));
}

#[test]
fn hostile_schemas_stay_bounded() {
    // 10 000 properties: one JSON field with a note.
    let mut props = serde_json::Map::new();
    for i in 0..10_000 {
        props.insert(format!("p{i}"), json!({"type": "string"}));
    }
    let wide = json!({"type": "object", "properties": props});
    let form = build(&wide, &json!({}));
    assert!(note(&form).contains("10000 fields"));
    // Many medium objects: the total stays near the bound.
    let mut outer = serde_json::Map::new();
    for i in 0..300 {
        let inner: serde_json::Map<String, Value> = (0..300)
            .map(|j| (format!("q{j}"), json!({"type": "integer"})))
            .collect();
        outer.insert(
            format!("o{i}"),
            json!({"type": "object", "properties": inner}),
        );
    }
    let form = build(&json!({"type": "object", "properties": outer}), &json!({}));
    assert!(count(&form) <= MAX_FIELDS + 1, "{}", count(&form));
    // Deep nesting (schema and value): JSON below the depth bound, no recursion past it.
    let mut schema = json!({"type": "string"});
    let mut value = json!("leaf");
    for _ in 0..100 {
        schema = json!({"type": "object", "properties": {"x": schema}});
        value = json!({"x": value});
    }
    let mut n = &build(&schema, &value);
    let mut depth = 0;
    while let Kind::Group { children } = &n.kind {
        n = &children[0];
        depth += 1;
    }
    assert_eq!(depth, MAX_DEPTH + 1);
    assert!(note(n).contains("levels deep"));
    let inferred = infer_schema(&value);
    assert!(serde_json::to_string(&inferred).unwrap().len() < 1000);
    // A self-referencing schema and a 1000-item list.
    let cyclic = json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}},
        "type": "object", "properties": {"head": {"$ref": "#/$defs/n"}}});
    assert!(note(&children(&build(&cyclic, &json!({})))[0]).contains("$ref"));
    let long = json!({"type": "array", "items": {"type": "string"}});
    let items: Vec<Value> = (0..1000).map(|i| json!(i.to_string())).collect();
    assert!(note(&build(&long, &Value::Array(items.clone()))).contains("1000 items"));
    // Adding stops at the bound.
    let mut full = Value::Array(items[..MAX_ITEMS].to_vec());
    assert!(!add_item(&mut full, &[], &json!({"type": "string"})));
    // Labels are cut.
    let long_title = json!({"type": "string", "title": "t".repeat(10_000)});
    assert!(build(&long_title, &json!("")).field.label.chars().count() <= 121);
}

//! Tests of the `form` module.
use super::*;
use serde_json::json;

fn field(name: &str, kind: FieldKind, required: bool) -> FormField {
    FormField {
        name: name.into(),
        label: name.into(),
        kind,
        required,
        default: None,
        description: None,
    }
}

#[test]
fn collect_typed_values() {
    let fields = vec![
        field("s", FieldKind::Text, true),
        field("n", FieldKind::Number, false),
        field("i", FieldKind::Integer, false),
        field("b", FieldKind::Boolean, false),
        field("e", FieldKind::Enum(vec![json!("a"), json!(2)]), false),
        field("d", FieldKind::Date, false),
        field("j", FieldKind::Json, false),
        field("opt", FieldKind::Text, false),
    ];
    let raw = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let ok = collect_values(
        &fields,
        &raw(&[
            "hi",
            "2.5",
            "-3",
            "true",
            "1",
            "2024-05-01",
            "{\"k\":[1]}",
            "",
        ]),
    )
    .unwrap();
    assert_eq!(
        ok,
        json!({"s": "hi", "n": 2.5, "i": -3, "b": true, "e": 2, "d": "2024-05-01", "j": {"k": [1]}})
    );
    assert_eq!(
        collect_values(&fields, &raw(&["x", "4", "", "false", "", "", "", ""])).unwrap(),
        json!({"s": "x", "n": 4, "b": false})
    );

    let errs = collect_values(
        &fields,
        &raw(&[" ", "abc", "1.5", "false", "9", "", "{", ""]),
    )
    .unwrap_err();
    assert_eq!(errs[0].as_deref(), Some("This field is required."));
    assert_eq!(errs[1].as_deref(), Some("Enter a number."));
    assert_eq!(errs[2].as_deref(), Some("Enter a whole number."));
    assert_eq!(errs[3], None);
    assert_eq!(errs[4].as_deref(), Some("Choose an option."));
    assert!(errs[6].as_deref().unwrap().starts_with("Enter valid JSON"));
    assert_eq!(errs[7], None);
    let req_enum = vec![field("e", FieldKind::Enum(vec![json!("a")]), true)];
    assert_eq!(
        collect_values(&req_enum, &raw(&[""])).unwrap_err()[0].as_deref(),
        Some("Choose an option.")
    );
    let inf = vec![field("n", FieldKind::Number, true)];
    assert!(collect_values(&inf, &raw(&["1e999"])).is_err());
}

#[test]
fn valid_form_props() {
    let p = parse(&json!({"title": "T", "submitLabel": "Go", "fields": [
        {"name": "a", "label": "A", "type": "string", "required": true},
        {"name": "b", "type": "number", "default": 2},
        {"name": "c", "type": "boolean"},
        {"name": "d", "type": "enum", "options": ["x", "y"], "default": "y"},
        {"name": "e"},
        {"name": "f", "type": "date"}]}))
    .unwrap();
    assert_eq!(p.submit_label.as_deref(), Some("Go"));
    assert_eq!(p.fields[1].label, "b");
    assert_eq!(p.fields[4].kind, FieldKind::Text);
    assert_eq!(p.fields[5].kind, FieldKind::Date);
    assert_eq!(initial_raw(&p.fields[3]), "1");
    assert_eq!(initial_raw(&p.fields[1]), "2");
}

#[test]
fn invalid_form_props() {
    let err = |v: Value| parse(&v).unwrap_err().to_string();
    assert_eq!(err(json!({})), "\"fields\" is required");
    assert_eq!(err(json!({"fields": []})), "\"fields\" must not be empty");
    assert!(err(json!({"fields": [1]})).contains("field 1 must be an object"));
    assert!(err(json!({"fields": [{"type": "string"}]})).contains("field 1: \"name\" is required"));
    assert!(err(json!({"fields": [{"name": " "}]})).contains("must not be empty"));
    assert!(
        err(json!({"fields": [{"name": "a"}, {"name": "a"}]})).contains("field 2: duplicate name")
    );
    assert!(
        err(json!({"fields": [{"name": "a", "type": "color"}]})).contains("unknown type \"color\"")
    );
    assert!(
        err(json!({"fields": [{"name": "a", "type": "enum"}]})).contains("non-empty \"options\"")
    );
    assert!(
        err(json!({"fields": [{"name": "a", "type": "enum", "options": [{}]}]}))
            .contains("options must be strings")
    );
    assert!(err(json!({"fields": [{"name": "a", "required": "yes"}]}))
        .contains("\"required\" must be a boolean"));
    assert!(
        err(json!({"fields": [{"name": "a", "label": 1}]})).contains("\"label\" must be a string")
    );
}

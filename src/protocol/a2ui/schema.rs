//! The JSON Schema subset that catalogs given as JSON use: `type`, `properties`, `required`,
//! `additionalProperties`, `items`, `const`, `enum`, `pattern`, `minItems`/`maxItems`,
//! `minLength`/`maxLength`, `minimum`/`maximum`, `allOf`/`anyOf`/`oneOf`, and `$ref` to the
//! common types `ComponentId` and `ChildList`. Other keywords and references are not checked:
//! a catalog may say more than this subset reads, never less.
//!
//! Schemas and values are both untrusted; the walk stops at [`MAX_SCHEMA_DEPTH`] levels.

use serde_json::{Map, Value};

use super::error::{Detail, DetailCode};
use super::pattern;
use super::refs::{child_list_refs, ChildRef};

const MAX_SCHEMA_DEPTH: usize = 16;

/// Validates a component against its schema: the envelope's keys are not the catalog's
/// business (neither required of it nor additional to it).
pub(crate) fn validate_component(
    sch: &Value,
    c: &Map<String, Value>,
    envelope: &[&str],
    out: &mut Vec<Detail>,
) {
    let body: Map<String, Value> = c
        .iter()
        .filter(|(k, _)| !envelope.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    check(sch, &Value::Object(body), "", envelope, 0, out);
}

/// Validates any value against a schema.
pub(crate) fn validate(sch: &Value, v: &Value, path: &str, out: &mut Vec<Detail>) {
    check(sch, v, path, &[], 0, out);
}

fn at(path: &str, key: &str) -> String {
    super::error::join_path(path, key)
}

fn invalid(path: &str, msg: String, out: &mut Vec<Detail>) {
    out.push(Detail::new(path, DetailCode::InvalidValue, msg));
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn check(
    sch: &Value,
    v: &Value,
    path: &str,
    skip_required: &[&str],
    depth: usize,
    out: &mut Vec<Detail>,
) {
    let Some(s) = sch.as_object() else {
        if sch == &Value::Bool(false) {
            invalid(path, format!("'{path}' is not allowed"), out);
        }
        return;
    };
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let shown = if path.is_empty() {
        "the component"
    } else {
        path
    };
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        if r.ends_with("/ComponentId") && !v.is_string() {
            invalid(path, format!("'{shown}' must be a component id"), out);
        }
        if r.ends_with("/ChildList") {
            let ok = v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
                || v.as_object()
                    .is_some_and(|o| o.get("componentId").is_some_and(Value::is_string));
            if !ok {
                invalid(path, format!("'{shown}' must be a child list"), out);
            }
        }
    }
    match s.get("type") {
        Some(Value::String(t)) if !type_ok(t, v) => {
            return invalid(path, format!("'{shown}' must be of type {t}"), out);
        }
        Some(Value::Array(ts)) if !ts.iter().any(|t| t.as_str().is_none_or(|t| type_ok(t, v))) => {
            return invalid(path, format!("'{shown}' has the wrong type"), out);
        }
        _ => {}
    }
    if let Some(c) = s.get("const") {
        if c != v {
            invalid(path, format!("'{shown}' must be {c}"), out);
        }
    }
    if let Some(Value::Array(e)) = s.get("enum") {
        if !e.contains(v) {
            invalid(
                path,
                format!("'{shown}' must be one of {}", Value::Array(e.clone())),
                out,
            );
        }
    }
    if let (Some(p), Some(text)) = (s.get("pattern").and_then(Value::as_str), v.as_str()) {
        if pattern::is_match(p, text) == Some(false) {
            invalid(path, format!("'{shown}' does not match {p}"), out);
        }
    }
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    let len = |k: &str| s.get(k).and_then(Value::as_u64).map(|n| n as usize);
    if let Some(text) = v.as_str() {
        let n = text.chars().count();
        if len("minLength").is_some_and(|m| n < m) || len("maxLength").is_some_and(|m| n > m) {
            invalid(path, format!("'{shown}' has the wrong length"), out);
        }
    }
    if let Some(x) = v.as_f64() {
        if num("minimum").is_some_and(|m| x < m) || num("maximum").is_some_and(|m| x > m) {
            invalid(path, format!("'{shown}' is out of range"), out);
        }
    }
    if let Some(a) = v.as_array() {
        if len("minItems").is_some_and(|m| a.len() < m)
            || len("maxItems").is_some_and(|m| a.len() > m)
        {
            invalid(
                path,
                format!("'{shown}' has the wrong number of items"),
                out,
            );
        }
        if let Some(items) = s.get("items") {
            for (i, x) in a.iter().enumerate() {
                check(items, x, &at(path, &i.to_string()), &[], depth + 1, out);
            }
        }
    }
    if let Some(o) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(r) = r.as_str() {
                if !o.contains_key(r) && !skip_required.contains(&r) {
                    out.push(Detail::new(
                        at(path, r),
                        DetailCode::MissingField,
                        format!("'{r}' is required"),
                    ));
                }
            }
        }
        for (k, x) in o {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(ps, x, &at(path, k), &[], depth + 1, out),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => out.push(Detail::new(
                        at(path, k),
                        DetailCode::UnknownField,
                        format!("unknown property '{k}'"),
                    )),
                    Some(extra @ Value::Object(_)) => {
                        check(extra, x, &at(path, k), &[], depth + 1, out)
                    }
                    _ => {}
                },
            }
        }
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for sub in all {
            check(sub, v, path, skip_required, depth + 1, out);
        }
    }
    for (key, exactly_one) in [("anyOf", false), ("oneOf", true)] {
        if let Some(Value::Array(subs)) = s.get(key) {
            let passing = subs
                .iter()
                .filter(|sub| {
                    let mut scratch = Vec::new();
                    check(sub, v, path, skip_required, depth + 1, &mut scratch);
                    scratch.is_empty()
                })
                .count();
            if passing == 0 || (exactly_one && passing > 1) {
                invalid(
                    path,
                    format!("'{shown}' matches {passing} of the {key} alternatives"),
                    out,
                );
            }
        }
    }
}

fn is_ref_to(sch: &Value, name: &str) -> bool {
    sch.get("$ref")
        .and_then(Value::as_str)
        .is_some_and(|r| r.ends_with(&format!("/{name}")))
}

/// The components a value refers to under its schema: `$ref`s to `ComponentId` and
/// `ChildList`, and (where the schema says nothing more) properties named `child` (an id) and
/// `children` (ids or a template), the catalogs' convention.
pub(crate) fn child_refs(sch: &Value, c: &Map<String, Value>, out: &mut Vec<ChildRef>) {
    for (k, v) in c {
        if k == "id" || k == "component" {
            continue;
        }
        let ps = sch
            .get("properties")
            .and_then(|p| p.get(k))
            .unwrap_or(&Value::Null);
        refs_in(ps, Some(k), v, 0, out);
    }
}

fn refs_in(ps: &Value, key: Option<&str>, v: &Value, depth: usize, out: &mut Vec<ChildRef>) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    if is_ref_to(ps, "ComponentId") || (key == Some("child") && ps.get("$ref").is_none()) {
        if let Some(id) = v.as_str() {
            out.push(ChildRef {
                id: id.into(),
                template: false,
            });
        }
        return;
    }
    if is_ref_to(ps, "ChildList") || (key == Some("children") && ps.get("$ref").is_none()) {
        return child_list_refs(v, out);
    }
    match v {
        Value::Array(a) => {
            let items = ps.get("items").unwrap_or(&Value::Null);
            for x in a {
                refs_in(items, None, x, depth + 1, out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                let sub = ps
                    .get("properties")
                    .and_then(|p| p.get(k))
                    .unwrap_or(&Value::Null);
                if !sub.is_null() {
                    refs_in(sub, Some(k), x, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

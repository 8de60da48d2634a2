//! The basic catalog's property checks: each value against its type in `basic.rs` (dynamic
//! values, child lists, actions, checks, tabs, options, icons, function calls). The recursion
//! follows the value's nesting, which the processor bounds before a component gets here.

use serde_json::{Map, Value};

use super::basic::{self, Ty};
use super::error::{Detail, DetailCode};

/// Keys the envelope adds to every component; a catalog does not declare them.
pub(crate) const ENVELOPE_KEYS: [&str; 2] = ["id", "component"];

pub(crate) fn validate_basic(spec: &basic::Spec, c: &Map<String, Value>, out: &mut Vec<Detail>) {
    for (name, _, required) in spec.props {
        if *required && !c.contains_key(*name) {
            out.push(Detail::new(
                *name,
                DetailCode::MissingField,
                format!("{} requires '{name}'", spec.name),
            ));
        }
    }
    for (name, v) in c {
        if ENVELOPE_KEYS.contains(&name.as_str()) {
            continue;
        }
        match basic::prop(spec, name) {
            Some(ty) => check(ty, v, name, out),
            None => out.push(Detail::new(
                name.clone(),
                DetailCode::UnknownField,
                format!("{} has no property '{name}'", spec.name),
            )),
        }
    }
}

fn bad(path: &str, what: &str, out: &mut Vec<Detail>) {
    out.push(Detail::new(
        path,
        DetailCode::InvalidValue,
        format!("'{path}' must be {what}"),
    ));
}

/// `{path: "…"}` and nothing else.
pub(crate) fn is_binding(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.len() == 1 && o.get("path").is_some_and(Value::is_string))
}

fn is_call(v: &Value) -> bool {
    v.as_object().is_some_and(|o| o.contains_key("call"))
}

/// Checks a value against a basic-catalog type.
fn check(ty: Ty, v: &Value, path: &str, out: &mut Vec<Detail>) {
    let dynamic = |expected: &str, literal_ok: bool, out: &mut Vec<Detail>| {
        if literal_ok || is_binding(v) {
            return;
        }
        if is_call(v) {
            check_call(v, path, Some(expected), out);
        } else {
            bad(
                path,
                &format!("a {expected}, a {{path}} binding or a function call"),
                out,
            );
        }
    };
    match ty {
        Ty::Str if !v.is_string() => bad(path, "a string", out),
        Ty::Num if !v.is_number() => bad(path, "a number", out),
        Ty::Bool if !v.is_boolean() => bad(path, "a boolean", out),
        Ty::Str | Ty::Num | Ty::Bool => {}
        Ty::DynStr => dynamic("string", v.is_string(), out),
        Ty::DynNum => dynamic("number", v.is_number(), out),
        Ty::DynBool => dynamic("boolean", v.is_boolean(), out),
        Ty::DynStrList => {
            let literal = v.as_array().is_some_and(|a| a.iter().all(Value::is_string));
            dynamic("array", literal, out)
        }
        Ty::DynValue => {
            let literal = v.is_string() || v.is_number() || v.is_boolean() || v.is_array();
            dynamic("any", literal, out)
        }
        Ty::ChildList => match v {
            Value::Array(a) if a.iter().all(Value::is_string) => {}
            Value::Object(t)
                if t.len() == 2
                    && t.get("componentId").is_some_and(Value::is_string)
                    && t.get("path").is_some_and(Value::is_string) => {}
            _ => bad(
                path,
                "a list of component ids or a template {componentId, path}",
                out,
            ),
        },
        Ty::Id if !v.is_string() => bad(path, "a component id", out),
        Ty::Id => {}
        Ty::Enum(allowed) => {
            if !v.as_str().is_some_and(|s| allowed.contains(&s)) {
                bad(path, &format!("one of {}", allowed.join(", ")), out)
            }
        }
        Ty::Icon => {
            let ok = v.as_str().is_some_and(|s| basic::ICON_NAMES.contains(&s))
                || is_binding(v)
                || v.as_object().is_some_and(|o| {
                    o.len() == 1 && o.get("svgPath").is_some_and(Value::is_string)
                });
            if !ok {
                bad(path, "an icon name, {svgPath} or a {path} binding", out);
            }
        }
        Ty::Accessibility => match v.as_object() {
            Some(o) => {
                for (k, x) in o {
                    if k == "label" || k == "description" {
                        check(Ty::DynStr, x, &format!("{path}.{k}"), out);
                    }
                }
            }
            None => bad(path, "an object", out),
        },
        Ty::Action => check_action(v, path, out),
        Ty::Checks => list_of(v, path, CHECK, false, "a list of checks", out),
        Ty::Tabs => list_of(v, path, TAB, true, "a non-empty list of tabs", out),
        Ty::Options => list_of(v, path, OPTION, false, "a list of options", out),
    }
}

/// The items of `checks`, `tabs` and `options` (common types `CheckRule`, the Tabs and
/// ChoicePicker item objects).
const CHECK: &[basic::Prop] = &[("condition", Ty::DynBool, true), ("message", Ty::Str, true)];
const TAB: &[basic::Prop] = &[("title", Ty::DynStr, true), ("child", Ty::Id, true)];
const OPTION: &[basic::Prop] = &[("label", Ty::DynStr, true), ("value", Ty::Str, true)];

/// A list whose items are objects with exactly `props`.
fn list_of(
    v: &Value,
    path: &str,
    props: &[basic::Prop],
    non_empty: bool,
    what: &str,
    out: &mut Vec<Detail>,
) {
    match v.as_array() {
        Some(items) if !(non_empty && items.is_empty()) => {
            for (i, item) in items.iter().enumerate() {
                object_with(item, &format!("{path}.{i}"), props, out);
            }
        }
        _ => bad(path, what, out),
    }
}

/// An object with exactly these properties (`additionalProperties: false`).
fn object_with(v: &Value, path: &str, props: &[basic::Prop], out: &mut Vec<Detail>) {
    let Some(o) = v.as_object() else {
        return bad(path, "an object", out);
    };
    for (name, ty, required) in props {
        match o.get(*name) {
            Some(x) => check(*ty, x, &format!("{path}.{name}"), out),
            None if *required => out.push(Detail::new(
                format!("{path}.{name}"),
                DetailCode::MissingField,
                format!("'{path}' requires '{name}'"),
            )),
            None => {}
        }
    }
    for k in o.keys() {
        if !props.iter().any(|(n, _, _)| n == k) {
            out.push(Detail::new(
                format!("{path}.{k}"),
                DetailCode::UnknownField,
                format!("unknown property '{k}'"),
            ));
        }
    }
}

fn check_action(v: &Value, path: &str, out: &mut Vec<Detail>) {
    let Some(o) = v.as_object().filter(|o| o.len() == 1) else {
        return bad(path, "{event: {name, context}} or {functionCall}", out);
    };
    if let Some(event) = o.get("event") {
        let at = format!("{path}.event");
        let Some(e) = event.as_object() else {
            return bad(&at, "an object", out);
        };
        if !e.get("name").is_some_and(Value::is_string) {
            out.push(Detail::new(
                format!("{at}.name"),
                DetailCode::MissingField,
                "an event needs a string 'name'",
            ));
        }
        for (k, x) in e {
            match k.as_str() {
                "name" => {}
                "context" => match x.as_object() {
                    Some(ctx) => {
                        for (ck, cv) in ctx {
                            check(Ty::DynValue, cv, &format!("{at}.context.{ck}"), out);
                        }
                    }
                    None => bad(&format!("{at}.context"), "an object", out),
                },
                other => out.push(Detail::new(
                    format!("{at}.{other}"),
                    DetailCode::UnknownField,
                    format!("unknown property '{other}'"),
                )),
            }
        }
    } else if let Some(call) = o.get("functionCall") {
        check_call(call, &format!("{path}.functionCall"), None, out);
    } else {
        bad(path, "{event: {name, context}} or {functionCall}", out);
    }
}

/// A call of a catalog function: known name, its required arguments and no others, a
/// `returnType` that is the function's, and one the place expects (`expected`, or any).
fn check_call(v: &Value, path: &str, expected: Option<&str>, out: &mut Vec<Detail>) {
    let Some(o) = v.as_object() else {
        return bad(path, "a function call", out);
    };
    let Some(name) = o.get("call").and_then(Value::as_str) else {
        return bad(&format!("{path}.call"), "a function name", out);
    };
    let Some(f) = basic::function(name) else {
        out.push(Detail::new(
            format!("{path}.call"),
            DetailCode::InvalidValue,
            format!("Unknown function '{name}'"),
        ));
        return;
    };
    for k in o.keys() {
        if !["call", "args", "returnType"].contains(&k.as_str()) {
            out.push(Detail::new(
                format!("{path}.{k}"),
                DetailCode::UnknownField,
                format!("unknown property '{k}'"),
            ));
        }
    }
    if let Some(rt) = o.get("returnType") {
        if rt.as_str() != Some(f.returns) {
            bad(
                &format!("{path}.returnType"),
                &format!("'{}' for {name}", f.returns),
                out,
            );
        }
    }
    if let Some(e) = expected {
        if e != "any" && f.returns != e {
            bad(
                path,
                &format!("a call returning {e} ({name} returns {})", f.returns),
                out,
            );
        }
    }
    let Some(args) = o.get("args").and_then(Value::as_object) else {
        return bad(&format!("{path}.args"), "an object", out);
    };
    for r in f.required {
        if !args.contains_key(*r) {
            out.push(Detail::new(
                format!("{path}.args.{r}"),
                DetailCode::MissingField,
                format!("{name} requires '{r}'"),
            ));
        }
    }
    for (k, a) in args {
        if !f.required.contains(&k.as_str()) && !f.optional.contains(&k.as_str()) {
            out.push(Detail::new(
                format!("{path}.args.{k}"),
                DetailCode::UnknownField,
                format!("{name} takes no '{k}'"),
            ));
        }
        // Nested calls are checked too (their depth is bounded by the component's nesting).
        for nested in a.as_array().map_or(std::slice::from_ref(a), Vec::as_slice) {
            if is_call(nested) {
                check_call(nested, &format!("{path}.args.{k}"), None, out);
            }
        }
    }
}

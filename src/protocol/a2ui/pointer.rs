//! JSON Pointers into a surface's data model: parsing, reading, writing (creating the
//! containers on the way) and removing, and the resolution of relative paths inside List
//! templates.
//!
//! A2UI reads pointers a little differently from RFC 6901, and so do we: `""` and `"/"` both
//! mean the whole model, and empty segments (`/a//b`, a trailing `/`) are skipped, because
//! agents write `/items/` as often as `/items`. `~0` and `~1` are unescaped as in the RFC.

use serde_json::{Map, Value};

use super::error::A2uiError;

/// The segments of an absolute pointer, unescaped.
pub fn parse(path: &str) -> Result<Vec<String>, A2uiError> {
    let Some(rest) = path.strip_prefix('/') else {
        if path.is_empty() {
            return Ok(Vec::new());
        }
        return Err(A2uiError::validation(format!(
            "invalid path '{path}': a data-model path must start with '/'"
        )));
    };
    let mut out = Vec::new();
    for raw in rest.split('/').filter(|s| !s.is_empty()) {
        let mut seg = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c != '~' {
                seg.push(c);
                continue;
            }
            match chars.next() {
                Some('0') => seg.push('~'),
                Some('1') => seg.push('/'),
                _ => {
                    return Err(A2uiError::validation(format!(
                        "invalid path '{path}': '~' must be followed by 0 or 1"
                    )))
                }
            }
        }
        out.push(seg);
    }
    Ok(out)
}

/// Joins `path` to the data context of a template (`contextPath`): absolute paths stand alone,
/// relative ones are read under the context (or under the root without one).
pub fn resolve_path(path: &str, context: Option<&str>) -> String {
    if path.starts_with('/') {
        return path.to_string();
    }
    let base = context.unwrap_or("").trim_end_matches('/');
    if path.is_empty() {
        return if base.is_empty() {
            "/".into()
        } else {
            base.into()
        };
    }
    format!("{base}/{path}")
}

fn index(seg: &str) -> Option<usize> {
    // RFC 6901: no sign, no leading zeros (so "01" is a key, not an index).
    if seg.is_empty() || (seg.len() > 1 && seg.starts_with('0')) {
        return None;
    }
    if !seg.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    seg.parse().ok()
}

/// The value at `segments`, if there is one.
pub fn get<'a>(model: &'a Value, segments: &[String]) -> Option<&'a Value> {
    let mut at = model;
    for seg in segments {
        at = match at {
            Value::Object(o) => o.get(seg.as_str())?,
            Value::Array(a) => a.get(index(seg)?)?,
            _ => return None,
        };
    }
    Some(at)
}

/// The value at an absolute pointer string (`None` for a malformed pointer too).
pub fn get_path<'a>(model: &'a Value, path: &str) -> Option<&'a Value> {
    get(model, &parse(path).ok()?)
}

/// A container fit to hold `next`: an array when it is an index, an object otherwise.
fn container_for(next: &str) -> Value {
    if index(next).is_some() {
        Value::Array(Vec::new())
    } else {
        Value::Object(Map::new())
    }
}

/// Writes `value` at `segments`, creating missing containers (an array where the next segment
/// is an index, an object otherwise) and replacing scalars that stand in the way. In an array,
/// an index may name an element or the end (`len` or `-`, which appends); beyond it is an
/// error, so a pointer cannot make the model allocate a huge array of nulls.
pub fn set(model: &mut Value, segments: &[String], value: Value) -> Result<(), A2uiError> {
    let Some((last, parents)) = segments.split_last() else {
        *model = value;
        return Ok(());
    };
    let mut at = model;
    for (i, seg) in parents.iter().enumerate() {
        let next = segments[i + 1].as_str();
        at = slot(at, seg, Some(next))?;
    }
    *slot(at, last, None)? = value;
    Ok(())
}

/// The place `seg` names inside `at`, made a container first when it is a scalar; a missing
/// place is created (holding a container fit for `next`, or `null` for the last segment).
fn slot<'a>(at: &'a mut Value, seg: &str, next: Option<&str>) -> Result<&'a mut Value, A2uiError> {
    if !at.is_object() && !at.is_array() {
        *at = container_for(seg);
    }
    let fresh = || next.map_or(Value::Null, container_for);
    let place = match at {
        Value::Object(o) => o.entry(seg.to_string()).or_insert_with(fresh),
        Value::Array(a) => {
            let i = array_slot(a, seg)?;
            if i == a.len() {
                a.push(fresh());
            }
            &mut a[i]
        }
        _ => return Err(A2uiError::validation("invalid path")),
    };
    if let Some(next) = next {
        if !place.is_object() && !place.is_array() {
            *place = container_for(next);
        }
    }
    Ok(place)
}

fn array_slot(a: &[Value], seg: &str) -> Result<usize, A2uiError> {
    let i = if seg == "-" {
        Some(a.len())
    } else {
        index(seg)
    };
    match i {
        Some(i) if i <= a.len() => Ok(i),
        _ => Err(A2uiError::validation(format!(
            "invalid path: '{seg}' is not an index of an array of {} items",
            a.len()
        ))),
    }
}

/// Removes what `segments` names (the key of an object, the element of an array); removing
/// the root empties the model. Removing what is not there is not an error.
pub fn remove(model: &mut Value, segments: &[String]) {
    let Some((last, parents)) = segments.split_last() else {
        *model = Value::Object(Map::new());
        return;
    };
    let mut at = model;
    for seg in parents {
        let next = match at {
            Value::Object(o) => o.get_mut(seg.as_str()),
            Value::Array(a) => match index(seg) {
                Some(i) => a.get_mut(i),
                None => None,
            },
            _ => None,
        };
        match next {
            Some(n) => at = n,
            None => return,
        }
    }
    match at {
        Value::Object(o) => {
            o.shift_remove(last.as_str());
        }
        Value::Array(a) => {
            if let Some(i) = index(last).filter(|i| *i < a.len()) {
                a.remove(i);
            }
        }
        _ => {}
    }
}

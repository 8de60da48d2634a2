//! The bounds on what A2UI messages may claim, in one place, and the iterative walk that checks
//! a JSON value against them.
//!
//! Why these numbers: a surface is something a person reads in a chat, so a few hundred
//! components and a data model of a few hundred KiB are already generous; the bounds exist so
//! that an agent (or anyone who can put an activity in a stream) cannot make the browser build
//! millions of nodes, recurse off the stack, or hold megabytes per surface.

use serde_json::Value;

use super::error::A2uiError;

/// Every bound of the A2UI processor and renderer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct A2uiLimits {
    /// Surfaces one processor holds at once.
    pub max_surfaces: usize,
    /// Components on one surface (and in one `updateComponents`).
    pub max_components: usize,
    /// Nesting of the component tree from `root` (root alone is depth 1).
    pub max_depth: usize,
    /// Nesting of function calls inside one value (the validator suite's bound is 5).
    pub max_call_depth: usize,
    /// Bytes of a surface's data model, serialised compactly.
    pub max_data_bytes: usize,
    /// JSON values (containers and scalars) in a surface's data model.
    pub max_data_nodes: usize,
    /// Nesting of containers in a data model or in one component.
    pub max_json_depth: usize,
    /// Bytes of one component, serialised compactly.
    pub max_component_bytes: usize,
    /// Bytes of any one string (a text, a URL, a data-model value).
    pub max_string_len: usize,
    /// Bytes of an id (surface, component, catalog) and of a JSON Pointer.
    pub max_id_len: usize,
    /// Messages in one activity content.
    pub max_operations: usize,
    /// Items a List template renders (the rest are counted, not rendered).
    pub max_list_items: usize,
}

impl A2uiLimits {
    pub const DEFAULT: A2uiLimits = A2uiLimits {
        max_surfaces: 32,
        max_components: 1_000,
        max_depth: 32,
        max_call_depth: 5,
        max_data_bytes: 512 * 1024,
        max_data_nodes: 20_000,
        max_json_depth: 32,
        max_component_bytes: 64 * 1024,
        max_string_len: 64 * 1024,
        max_id_len: 256,
        max_operations: 1_000,
        max_list_items: 200,
    };
}

impl Default for A2uiLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What [`measure`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Size {
    /// Compact serialised size, approximated from above (strings counted raw plus quotes).
    pub bytes: usize,
    /// Values, containers and scalars alike.
    pub nodes: usize,
    /// Container nesting (`0` for a scalar).
    pub depth: usize,
}

/// The bounds one walk enforces.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    pub what: &'static str,
    pub max_bytes: usize,
    pub max_nodes: usize,
    pub max_depth: usize,
    pub max_string_len: usize,
}

/// Measures `v`, stopping with a [`super::Category::Limit`] error at the first bound passed.
/// Iterative: the stack holds one entry per open container, at most `max_depth` of them.
pub(crate) fn measure(v: &Value, b: &Bounds) -> Result<Size, A2uiError> {
    let mut size = Size::default();
    // (value, depth of the containers around it)
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, depth)) = stack.pop() {
        size.nodes += 1;
        if size.nodes > b.max_nodes {
            return Err(A2uiError::limit(format!(
                "{} has more than {} values",
                b.what, b.max_nodes
            )));
        }
        let inner = match v {
            Value::Array(a) => {
                size.bytes += 2 + a.len().saturating_sub(1);
                stack.extend(a.iter().map(|x| (x, depth + 1)));
                true
            }
            Value::Object(o) => {
                size.bytes += 2 + o.len().saturating_sub(1);
                for (k, x) in o {
                    check_string(k, b)?;
                    size.bytes += k.len() + 3;
                    stack.push((x, depth + 1));
                }
                true
            }
            Value::String(s) => {
                check_string(s, b)?;
                size.bytes += s.len() + 2;
                false
            }
            other => {
                size.bytes += scalar_len(other);
                false
            }
        };
        if inner {
            size.depth = size.depth.max(depth + 1);
            if depth + 1 > b.max_depth {
                return Err(A2uiError::limit(format!(
                    "{} is nested deeper than {} levels",
                    b.what, b.max_depth
                )));
            }
        }
        if size.bytes > b.max_bytes {
            return Err(A2uiError::limit(format!(
                "{} is larger than {} bytes",
                b.what, b.max_bytes
            )));
        }
    }
    Ok(size)
}

fn check_string(s: &str, b: &Bounds) -> Result<(), A2uiError> {
    if s.len() > b.max_string_len {
        return Err(A2uiError::limit(format!(
            "a string in {} is longer than {} bytes",
            b.what, b.max_string_len
        )));
    }
    Ok(())
}

fn digits(u: u64) -> usize {
    u.checked_ilog10().map_or(1, |d| d as usize + 1)
}

fn scalar_len(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        // Integers by their digits; floats print in at most 24 bytes, counted as that much
        // rather than printed.
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => digits(u),
            (None, Some(i)) => 1 + digits(i.unsigned_abs()),
            _ => 24,
        },
        _ => 0,
    }
}

/// Ids may be any string (the protocol does not restrict them), but not longer than the bound.
pub(crate) fn check_id(what: &str, id: &str, l: &A2uiLimits) -> Result<(), A2uiError> {
    if id.len() > l.max_id_len {
        return Err(A2uiError::limit(format!(
            "{what} is longer than {} bytes",
            l.max_id_len
        )));
    }
    Ok(())
}

//! The enforcement's shortcut for flat events of a shape already found clean.

use serde_json::{Map, Value};

/// Shapes of flat events already found clean, at most this many (a stream of ever-new member
/// names only fills the set once, then takes the full check).
const CLEAN_SHAPES_LIMIT: usize = 256;
/// Members of flat events whose string is one of an enumeration (`TextRole`, `ToolRole`,
/// `ReasoningRole`, `EncryptedSubtype`): a string the parse refuses looks like one it takes.
const ENUMERATED: [&str; 2] = ["role", "subtype"];
/// Longest shape remembered, in bytes.
const SHAPE_BYTES_LIMIT: usize = 512;

std::thread_local! {
    static CLEAN_SHAPES: std::cell::RefCell<std::collections::HashSet<String>> =
        Default::default();
}

/// A flat event's shape: its type and the names and JSON types of its non-null members, in
/// order. A flat event is one whose members are all scalars, apart from `metadata` and
/// `rawEvent` (which the parse keeps whole). For such an event, what the parse strips depends on
/// its shape alone (a member's name and the type decide whether the event keeps it; a scalar has
/// nothing inside to strip), so a shape once found clean is clean again and the comparison of
/// the input with the event's wire form — most of the work for a text delta — is skipped. The
/// members' JSON types are in the shape, and an event with a member whose string is one of an
/// enumeration (`role`, `subtype`) has no shape, so the parse of a known shape does not fail:
/// the fast path parses the value itself, and an event it could not parse always takes the
/// full check, whose message quotes it.
pub(super) struct Shape(String);

impl Shape {
    pub(super) fn of(ty: &str, obj: &Map<String, Value>) -> Option<Shape> {
        let mut key = String::with_capacity(64);
        key.push_str(ty);
        for (k, v) in obj {
            match v {
                Value::Null => continue,
                Value::Object(_) | Value::Array(_) if k != "metadata" && k != "rawEvent" => {
                    return None
                }
                _ => {}
            }
            if ENUMERATED.contains(&k.as_str()) {
                return None;
            }
            key.push('\0');
            key.push(match v {
                Value::Bool(_) => 'b',
                Value::Number(n) if n.is_i64() => 'i',
                Value::Number(n) if n.is_u64() => 'u',
                Value::Number(_) => 'f',
                Value::String(_) => 's',
                Value::Array(_) => 'a',
                _ => 'o',
            });
            key.push_str(k);
            if key.len() > SHAPE_BYTES_LIMIT {
                return None;
            }
        }
        Some(Shape(key))
    }

    pub(super) fn known_clean(&self) -> bool {
        CLEAN_SHAPES.with(|s| s.borrow().contains(&self.0))
    }

    pub(super) fn remember_clean(self) {
        CLEAN_SHAPES.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < CLEAN_SHAPES_LIMIT {
                s.insert(self.0);
            }
        });
    }
}

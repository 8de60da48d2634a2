//! Bounds on JSON values we accept or build (state after patches included): nesting depth and
//! serialised size, measured without serialising and without recursion.
//!
//! Why not `serde_json::to_string(v).len()`: that allocates the whole text (a 256 MiB state
//! would cost 256 MiB more just to be refused) and recurses once per level, so a value nested
//! 100,000 deep overflows the stack before it can be refused. [`measure`] walks the value with
//! an explicit stack and stops at the first bound passed, so its cost is bounded by the limits,
//! not by the input.

use std::fmt;

use serde_json::Value;

/// How deep and how large a JSON value may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonLimits {
    /// Containers nested inside one another (`1` is `[1]`, `0` a scalar).
    pub max_depth: usize,
    /// Bytes of the compact serialisation (`serde_json::to_string`).
    pub max_bytes: usize,
}

impl JsonLimits {
    /// The defaults of `--max-json-depth` and `--max-state-bytes`.
    pub const DEFAULT: JsonLimits = JsonLimits {
        max_depth: 64,
        max_bytes: 4 * 1024 * 1024,
    };
}

impl Default for JsonLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The bound a value passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitError {
    TooDeep { max: usize },
    TooLarge { max: usize },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::TooDeep { max } => write!(f, "too deep (over {max} levels)"),
            LimitError::TooLarge { max } => write!(f, "too large (over {max} bytes)"),
        }
    }
}

impl std::error::Error for LimitError {}

/// What [`measure`] found: the compact serialised size and the nesting depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measure {
    pub bytes: usize,
    pub depth: usize,
}

/// `Ok` when `v` is within `l`. Iterative; stops as soon as a bound is passed.
pub fn check_json(v: &Value, l: &JsonLimits) -> Result<(), LimitError> {
    measure(v, l).map(|_| ())
}

/// The size `serde_json::to_string(v)` would have and the depth of `v`, or the first bound of
/// `l` it passes. Never allocates more than one stack entry per open container (at most
/// `l.max_depth` of them) and visits at most about `l.max_bytes` values.
pub fn measure(v: &Value, l: &JsonLimits) -> Result<Measure, LimitError> {
    enum Open<'a> {
        Array(std::slice::Iter<'a, Value>),
        Object(serde_json::map::Iter<'a>),
    }
    let too_large = LimitError::TooLarge { max: l.max_bytes };
    let mut bytes = 0usize;
    let mut depth = 0usize;
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut next = Some(v);
    loop {
        if let Some(v) = next.take() {
            // Container overhead: brackets and the commas between its n entries.
            let (open, n) = match v {
                Value::Array(a) => (Some(Open::Array(a.iter())), a.len()),
                Value::Object(o) => (Some(Open::Object(o.iter())), o.len()),
                scalar => {
                    bytes = bytes.saturating_add(scalar_len(scalar));
                    (None, 0)
                }
            };
            if let Some(open) = open {
                if stack.len() + 1 > l.max_depth {
                    return Err(LimitError::TooDeep { max: l.max_depth });
                }
                bytes = bytes.saturating_add(2 + n.saturating_sub(1));
                stack.push(open);
                depth = depth.max(stack.len());
            }
            if bytes > l.max_bytes {
                return Err(too_large);
            }
        }
        let Some(top) = stack.last_mut() else {
            return Ok(Measure { bytes, depth });
        };
        match top {
            Open::Array(items) => next = items.next(),
            Open::Object(entries) => {
                if let Some((k, v)) = entries.next() {
                    bytes = bytes.saturating_add(key_len(k));
                    next = Some(v);
                }
            }
        }
        if next.is_none() {
            stack.pop();
        }
    }
}

/// Bytes an object key adds besides its value: the quoted, escaped key and the colon.
pub(crate) fn key_len(key: &str) -> usize {
    string_len(key) + 1
}

/// Bytes of a scalar's compact serialisation (containers: 0, they are counted by [`measure`]).
fn scalar_len(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => {
            // `Number`'s Display is the text serde_json writes; count it without allocating.
            let mut count = Count(0);
            let _ = fmt::write(&mut count, format_args!("{n}"));
            count.0
        }
        Value::String(s) => string_len(s),
        Value::Array(_) | Value::Object(_) => 0,
    }
}

/// Bytes of `s` as serde_json writes it: quotes, two-byte escapes for `"`, `\` and the five
/// short control escapes, `\u00XX` for the other control characters, everything else verbatim.
fn string_len(s: &str) -> usize {
    2 + s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\x08' | b'\x0c' | b'\n' | b'\r' | b'\t' => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

struct Count(usize);

impl fmt::Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// Drops `v` without recursion (serde_json's drop recurses once per level, so dropping a value
/// nested 100,000 deep overflows the stack). For values that may not have passed a depth check.
pub fn drop_iteratively(v: Value) {
    let mut pending = vec![v];
    while let Some(v) = pending.pop() {
        match v {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;

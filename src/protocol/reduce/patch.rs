//! JSON Patch (RFC 6902) applied all-or-nothing and within [`JsonLimits`], checked op by op.
//!
//! `json_patch::patch` applies a whole patch before anyone can look at the result, so a 1.3 KB
//! patch of `copy` ops that each double a subtree builds a 256 MiB value first. Here every op is
//! applied alone on a copy of the document, after its effect on the serialised size and depth
//! has been worked out from the op and the values it touches: an op whose result would pass a
//! bound is refused before it runs, and nothing past the bounds is ever built. The size is kept
//! exact for every op but `move` (whose target may replace a value we would have to measure):
//! a move only ever over-estimates, and an over-estimate past the bound is checked by measuring
//! the document again. The total bytes measured per patch are bounded too ([`WORK_FACTOR`]), so
//! a patch of many ops on a large state cannot turn into minutes of CPU.

use json_patch::jsonptr::Pointer;
use json_patch::PatchOperation;
use serde::Deserialize;
use serde_json::Value;

use crate::protocol::limits::{key_len, measure, JsonLimits, LimitError, Measure};

/// A patch may measure at most this many times the size bound before it is refused.
pub(crate) const WORK_FACTOR: usize = 8;

/// Why a patch was not applied (the document is unchanged either way).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PatchFailure {
    /// Not a valid patch, or an op failed (RFC 6902: the whole patch fails).
    Invalid(String),
    /// The result would pass a bound of the limits (or the patch does too much work).
    Limit(String),
}

/// Apply `ops` to `doc` all-or-nothing, refusing any result past `limits`. With `keep_object`,
/// a result that is not an object is refused too (activity content).
pub(crate) fn patch_within(
    doc: &mut Value,
    ops: &[Value],
    keep_object: bool,
    limits: &JsonLimits,
) -> Result<(), PatchFailure> {
    let ops = ops
        .iter()
        .map(PatchOperation::deserialize)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PatchFailure::Invalid(e.to_string()))?;
    let mut meter = Meter {
        limits: *limits,
        work: 0,
    };
    let mut size = meter.measure(doc, 0)?.bytes;
    let mut exact = true;
    let mut copy = doc.clone();
    for (i, op) in ops.iter().enumerate() {
        let growth = meter.growth(&copy, op, size)?;
        let after = size.saturating_add(growth.add).saturating_sub(growth.sub);
        if after > limits.max_bytes && exact && growth.exact {
            return Err(too_large(limits));
        }
        json_patch::patch_unsafe(&mut copy, std::slice::from_ref(op))
            .map_err(|e| PatchFailure::Invalid(format!("operation {i}: {}", e.kind)))?;
        size = after;
        exact &= growth.exact;
        if size > limits.max_bytes {
            // Only an over-estimate gets here: measure what the ops really built.
            size = meter.measure(&copy, 0)?.bytes;
            exact = true;
        }
    }
    if keep_object && !copy.is_object() {
        return Err(PatchFailure::Invalid(
            "the patch would replace the object with a non-object".into(),
        ));
    }
    *doc = copy;
    Ok(())
}

fn too_large(l: &JsonLimits) -> PatchFailure {
    PatchFailure::Limit(LimitError::TooLarge { max: l.max_bytes }.to_string())
}

/// What one op does to the serialised size: `+add - sub`; `exact` unless it is an upper bound.
struct Growth {
    add: usize,
    sub: usize,
    exact: bool,
}

const NONE: Growth = Growth {
    add: 0,
    sub: 0,
    exact: true,
};

/// Measures values for a patch and counts the work done.
struct Meter {
    limits: JsonLimits,
    work: usize,
}

impl Meter {
    /// `v`'s measure when placed under `above` containers, within the limits.
    fn measure(&mut self, v: &Value, above: usize) -> Result<Measure, PatchFailure> {
        let l = &self.limits;
        let within = JsonLimits {
            max_depth: l.max_depth.saturating_sub(above),
            max_bytes: l.max_bytes,
        };
        let m = measure(v, &within).map_err(|e| {
            PatchFailure::Limit(
                match e {
                    LimitError::TooDeep { .. } => LimitError::TooDeep { max: l.max_depth },
                    e => e,
                }
                .to_string(),
            )
        })?;
        self.work = self.work.saturating_add(m.bytes);
        if self.work > l.max_bytes.saturating_mul(WORK_FACTOR) {
            return Err(PatchFailure::Limit(format!(
                "the patch does too much work (over {} bytes measured)",
                l.max_bytes.saturating_mul(WORK_FACTOR)
            )));
        }
        Ok(m)
    }

    /// The size of a value already in the document (it passed the depth bound when it came in).
    fn existing(&mut self, v: &Value) -> Result<usize, PatchFailure> {
        Ok(self.measure(v, 0)?.bytes)
    }

    fn growth(
        &mut self,
        doc: &Value,
        op: &PatchOperation,
        size: usize,
    ) -> Result<Growth, PatchFailure> {
        Ok(match op {
            PatchOperation::Add(op) => {
                let m = self.measure(&op.value, op.path.count())?;
                self.insertion(doc, &op.path, m.bytes, size)?
            }
            PatchOperation::Copy(op) => match doc.pointer(op.from.as_str()) {
                Some(v) => {
                    let m = self.measure(v, op.path.count())?;
                    self.insertion(doc, &op.path, m.bytes, size)?
                }
                None => NONE,
            },
            PatchOperation::Replace(op) => match doc.pointer(op.path.as_str()) {
                Some(old) => {
                    let add = self.measure(&op.value, op.path.count())?.bytes;
                    let sub = self.existing(old)?;
                    Growth {
                        add,
                        sub,
                        exact: true,
                    }
                }
                None => NONE,
            },
            PatchOperation::Remove(op) => self.removal(doc, &op.path)?,
            PatchOperation::Move(op) => {
                let Some(v) = doc.pointer(op.from.as_str()) else {
                    return Ok(NONE);
                };
                if op.path.is_root() {
                    let add = self.existing(v)?;
                    return Ok(Growth {
                        add,
                        sub: size,
                        exact: true,
                    });
                }
                if op.path.count() > op.from.count() {
                    // Moved deeper: the subtree's depth counts from its new place.
                    self.measure(v, op.path.count())?;
                }
                // The value's own bytes move with it; only the key and separators change.
                // The target may replace a value (not subtracted): an over-estimate.
                let inserted = op
                    .path
                    .last()
                    .map_or(0, |last| key_len(&last.decoded()) + 1);
                Growth {
                    add: inserted,
                    sub: separator(doc, &op.from),
                    exact: false,
                }
            }
            PatchOperation::Test(_) => NONE,
        })
    }

    /// Placing a value of `bytes` at `path` (add or copy): a new member or element with its
    /// separator, or a replaced member.
    fn insertion(
        &mut self,
        doc: &Value,
        path: &Pointer,
        bytes: usize,
        size: usize,
    ) -> Result<Growth, PatchFailure> {
        let Some((parent, last)) = path.split_back() else {
            return Ok(Growth {
                add: bytes,
                sub: size,
                exact: true,
            });
        };
        Ok(match doc.pointer(parent.as_str()) {
            Some(Value::Object(o)) => {
                let key = last.decoded();
                match o.get(key.as_ref()) {
                    Some(old) => Growth {
                        add: bytes,
                        sub: self.existing(old)?,
                        exact: true,
                    },
                    None => Growth {
                        add: bytes + key_len(&key) + usize::from(!o.is_empty()),
                        sub: 0,
                        exact: true,
                    },
                }
            }
            Some(Value::Array(a)) => Growth {
                add: bytes + usize::from(!a.is_empty()),
                sub: 0,
                exact: true,
            },
            // The op will fail, and the patch with it.
            _ => NONE,
        })
    }

    /// Removing the member or element at `path`, with its key and separator.
    fn removal(&mut self, doc: &Value, path: &Pointer) -> Result<Growth, PatchFailure> {
        let Some(old) = doc.pointer(path.as_str()).filter(|_| !path.is_root()) else {
            return Ok(NONE);
        };
        let sub = self.existing(old)? + separator(doc, path);
        Ok(Growth {
            add: 0,
            sub,
            exact: true,
        })
    }
}

/// The bytes the entry at `path` takes in its container besides its value: the key with its
/// colon (object members) and one comma when the container has other entries.
fn separator(doc: &Value, path: &Pointer) -> usize {
    let Some((parent, last)) = path.split_back() else {
        return 0;
    };
    match doc.pointer(parent.as_str()) {
        Some(Value::Object(o)) => key_len(&last.decoded()) + usize::from(o.len() > 1),
        Some(Value::Array(a)) => usize::from(a.len() > 1),
        _ => 0,
    }
}

#[cfg(test)]
mod tests;

//! A walk over a frame's bytes before prost decodes it, bounding what decoding can allocate.
//!
//! prost bounds nesting (100 levels) and every string or list is bounded by the frame's bytes,
//! but not the number of nested messages: an empty entry of a repeated message field costs two
//! bytes on the wire and a whole struct (hundreds of bytes for `Message`) in memory, so a 10 MiB
//! frame of them would cost gigabytes. The walk counts every length-delimited field at every
//! depth that could be a message (anything that parses as protobuf, and every empty one) and
//! refuses the frame past [`MAX_NESTED_MESSAGES`]. It needs no schema (strings that happen to
//! parse as protobuf are counted too, which only errs on the safe side), reads every byte about
//! once, and recurses at most [`MAX_MESSAGE_DEPTH`] levels.

use super::{ProtoError, MAX_MESSAGE_DEPTH};

/// How many nested messages one frame may hold (state entries, list items, messages, parts…).
pub const MAX_NESTED_MESSAGES: usize = 1 << 17;

/// `Ok` when `payload` holds at most [`MAX_NESTED_MESSAGES`] nested messages. Malformed bytes
/// pass: prost reports them with a better message.
pub fn check(payload: &[u8]) -> Result<(), ProtoError> {
    check_with(payload, MAX_NESTED_MESSAGES)
}

pub(crate) fn check_with(payload: &[u8], budget: usize) -> Result<(), ProtoError> {
    let mut count = 0;
    walk(payload, 0, &mut count, budget).map(|_| ())
}

/// Whether `data` walks as a protobuf message; counts the nested messages it finds.
fn walk(data: &[u8], depth: usize, count: &mut usize, budget: usize) -> Result<bool, ProtoError> {
    let mut pos = 0;
    while pos < data.len() {
        let Some(tag) = varint(data, &mut pos, 5) else {
            return Ok(false);
        };
        if tag >> 3 == 0 || tag > u64::from(u32::MAX) {
            return Ok(false);
        }
        match tag & 7 {
            0 => {
                if varint(data, &mut pos, 10).is_none() {
                    return Ok(false);
                }
            }
            1 => pos += 8,
            5 => pos += 4,
            2 => {
                let Some(len) = varint(data, &mut pos, 5) else {
                    return Ok(false);
                };
                let Some(end) = usize::try_from(len)
                    .ok()
                    .and_then(|l| pos.checked_add(l))
                    .filter(|&e| e <= data.len())
                else {
                    return Ok(false);
                };
                let child = &data[pos..end];
                let before = *count;
                let is_message = child.is_empty()
                    || (depth < MAX_MESSAGE_DEPTH && walk(child, depth + 1, count, budget)?);
                if is_message {
                    *count += 1;
                    if *count > budget {
                        return Err(ProtoError::TooManyMessages(budget));
                    }
                } else {
                    *count = before;
                }
                pos = end;
            }
            // Groups (deprecated, unused by AG-UI) and invalid wire types.
            _ => return Ok(false),
        }
        if pos > data.len() {
            return Ok(false);
        }
    }
    Ok(true)
}

fn varint(data: &[u8], pos: &mut usize, max_bytes: usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..max_bytes {
        let b = *data.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

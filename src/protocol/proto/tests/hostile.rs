//! Frames a hostile peer could send: each fails cleanly, with memory bounded by the limits.

use proptest::prelude::*;

use super::*;
use crate::protocol::proto::scan::{check_with, MAX_NESTED_MESSAGES};

/// A length-delimited field: tag, length, bytes.
fn field(number: u32, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, u64::from(number << 3 | 2));
    put_varint(&mut out, bytes.len() as u64);
    out.extend_from_slice(bytes);
    out
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A base event declaring `ty` (field 1 of every event message).
fn base(ty: pb::EventType) -> Vec<u8> {
    let mut b = Vec::new();
    if ty as i32 != 0 {
        b.push(0x08);
        put_varint(&mut b, ty as u64);
    }
    field(1, &b)
}

#[test]
fn a_huge_length_fails_before_anything_is_buffered() {
    let mut d = FrameDecoder::new();
    let e = d.push(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3]).unwrap_err();
    assert!(
        matches!(
            e,
            FrameError::TooLarge {
                len: 0xffff_ffff,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(d.pending_bytes(), 0);
    let mut d = FrameDecoder::with_limit(16);
    assert!(d.push(&17u32.to_be_bytes()).is_err());
    assert!(FrameDecoder::with_limit(16)
        .push(&16u32.to_be_bytes())
        .unwrap()
        .is_empty());
}

#[test]
fn a_truncated_frame_is_an_error_at_the_end_and_bytes_split_anywhere_reassemble() {
    let frame = encode_event_json(&json!({"type": "STEP_STARTED", "stepName": "plan"})).unwrap();
    for cut in 0..frame.len() {
        let mut d = FrameDecoder::new();
        assert!(d.push(&frame[..cut]).unwrap().is_empty());
        if cut > 0 {
            assert!(matches!(d.finish(), Err(FrameError::Truncated(n)) if n == cut));
        }
        let mut d = FrameDecoder::new();
        let mut got = d.push(&frame[..cut]).unwrap();
        got.extend(d.push(&frame[cut..]).unwrap());
        assert_eq!(got.len(), 1);
        assert_eq!(decode_payload(&got[0]).unwrap()["stepName"], "plan");
    }
}

#[test]
fn deep_value_nesting_is_refused_on_both_sides() {
    // Reading: a CUSTOM value nested 5,000 lists deep (prost stops at 100 message levels).
    let mut value = Vec::new();
    for _ in 0..5_000 {
        value = field(6, &field(1, &value)); // Value.list_value → ListValue.values
    }
    let mut body = base(pb::EventType::Custom);
    body.extend(field(3, &value));
    let payload = field(11, &body);
    let e = decode_payload(&payload).unwrap_err();
    assert!(matches!(e, ProtoError::Decode(_)), "{e}");

    // Writing: deeper than MAX_JSON_DEPTH is refused; exactly MAX_JSON_DEPTH travels.
    let nest = |depth: usize, object: bool| {
        let mut v = json!(1);
        for _ in 0..depth {
            v = if object { json!({"k": v}) } else { json!([v]) };
        }
        json!({"type": "CUSTOM", "name": "deep", "value": v})
    };
    for object in [true, false] {
        let ok = nest(MAX_JSON_DEPTH, object);
        assert_eq!(super::round_trip(&ok).unwrap(), ok);
        assert_eq!(
            json_to_event(&nest(MAX_JSON_DEPTH + 1, object)),
            Err(ProtoError::TooDeep)
        );
    }
}

#[test]
fn many_empty_messages_are_refused_before_decoding() {
    // MESSAGES_SNAPSHOT with 200,000 empty messages: 400 KB on the wire, ~100 MB as structs.
    let mut body = base(pb::EventType::MessagesSnapshot);
    for _ in 0..200_000 {
        body.extend(field(2, &[]));
    }
    let payload = field(9, &body);
    assert!(payload.len() < 1 << 20);
    assert_eq!(
        decode_payload(&payload),
        Err(ProtoError::TooManyMessages(MAX_NESTED_MESSAGES))
    );
    // What the budget allows costs at most this much as the largest repeated element.
    let largest = [
        std::mem::size_of::<pb::Message>(),
        std::mem::size_of::<pb::Interrupt>(),
        std::mem::size_of::<pb::Tool>(),
        std::mem::size_of::<pb::InputContent>(),
        std::mem::size_of::<pb::JsonPatchOperation>(),
        std::mem::size_of::<pb::Usage>(),
    ]
    .into_iter()
    .max()
    .unwrap();
    assert!(
        MAX_NESTED_MESSAGES * largest <= 128 << 20,
        "{largest} B per message"
    );
    // A budget counts nested messages at every depth.
    let snapshot =
        encode_event_json(&json!({"type": "STATE_SNAPSHOT", "snapshot": {"a": [1, 2, 3]}}))
            .unwrap();
    // The event, its base, the Value, Struct, map entry, Value, ListValue and three Values.
    assert!(check_with(&snapshot[4..], 10).is_ok());
    assert!(check_with(&snapshot[4..], 9).is_err());
}

#[test]
fn an_envelope_that_contradicts_its_base_event_is_refused() {
    let payload = field(15, &base(pb::EventType::RunError)); // step_started declaring RUN_ERROR
    let e = decode_payload(&payload).unwrap_err();
    assert!(e.to_string().contains("STEP_STARTED"), "{e}");
    let no_base = field(15, &field(2, b"plan"));
    assert!(decode_payload(&no_base).is_err());
}

#[test]
fn an_arm_of_a_later_protocol_is_named_as_such() {
    assert_eq!(
        decode_payload(&field(99, &base(pb::EventType::Raw))),
        Err(ProtoError::UnknownEventType)
    );
    assert_eq!(decode_payload(&[]), Err(ProtoError::UnknownEventType));
}

#[test]
fn non_finite_numbers_have_no_json_form() {
    let mut value = vec![0x11]; // Value.number_value, fixed64
    value.extend_from_slice(&f64::NAN.to_le_bytes());
    let mut body = base(pb::EventType::Custom);
    body.extend(field(3, &value));
    assert!(matches!(
        decode_payload(&field(11, &body)),
        Err(ProtoError::Decode(_))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    /// Garbage never panics: it decodes to an event or fails with an error.
    #[test]
    fn garbage_bytes_fail_cleanly(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut d = FrameDecoder::with_limit(256);
        if let Ok(payloads) = d.push(&bytes) {
            for p in payloads {
                let _ = decode_payload(&p);
            }
        }
        let _ = decode_payload(&bytes);
    }

    /// A valid frame with one byte flipped never panics either.
    #[test]
    fn corrupted_frames_fail_cleanly(i in 0usize..4096, bit in 0u8..8) {
        for json in super::one_of_each() {
            let frame = encode_event_json(&json).unwrap();
            let mut bad = frame[4..].to_vec();
            let at = i % bad.len();
            bad[at] ^= 1 << bit;
            let _ = decode_payload(&bad);
        }
    }
}

//! Tests of the JSON bounds: exact sizes, early stops, and values far deeper than any stack.

use super::*;
use proptest::prelude::*;
use serde_json::json;

fn limits(max_depth: usize, max_bytes: usize) -> JsonLimits {
    JsonLimits {
        max_depth,
        max_bytes,
    }
}

/// `[[[…0…]]]` nested `n` deep, built without recursion.
fn nested_arrays(n: usize) -> Value {
    let mut v = json!(0);
    for _ in 0..n {
        v = Value::Array(vec![v]);
    }
    v
}

#[test]
fn defaults_are_the_spec_ones() {
    let l = JsonLimits::default();
    assert_eq!((l.max_depth, l.max_bytes), (64, 4 * 1024 * 1024));
}

#[test]
fn sizes_match_serde_json() {
    for v in [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(-12.5e-7),
        json!(1.0),
        json!(u64::MAX),
        json!("a\"b\\c\n\t\u{1}\u{7f}é😀"),
        json!([]),
        json!({}),
        json!([1, [2, [3, {}]], {"k\u{0}": "v", "": []}]),
        json!({"a": {"b": {"c": [null, false, "x"]}}}),
    ] {
        let m = measure(&v, &limits(usize::MAX, usize::MAX)).unwrap();
        assert_eq!(m.bytes, serde_json::to_string(&v).unwrap().len(), "{v}");
    }
}

#[test]
fn depth_counts_containers() {
    let unlimited = limits(usize::MAX, usize::MAX);
    assert_eq!(measure(&json!(1), &unlimited).unwrap().depth, 0);
    assert_eq!(measure(&json!([]), &unlimited).unwrap().depth, 1);
    assert_eq!(measure(&json!({"a": [1]}), &unlimited).unwrap().depth, 2);
    assert_eq!(
        check_json(&nested_arrays(64), &JsonLimits::default()),
        Ok(())
    );
    assert_eq!(
        check_json(&nested_arrays(65), &JsonLimits::default()),
        Err(LimitError::TooDeep { max: 64 })
    );
}

#[test]
fn size_bound_is_inclusive() {
    let v = json!({"a": "bc"}); // {"a":"bc"} = 10 bytes
    assert_eq!(check_json(&v, &limits(8, 10)), Ok(()));
    assert_eq!(
        check_json(&v, &limits(8, 9)),
        Err(LimitError::TooLarge { max: 9 })
    );
}

#[test]
fn messages_name_the_limit() {
    assert_eq!(
        LimitError::TooDeep { max: 64 }.to_string(),
        "too deep (over 64 levels)"
    );
    assert_eq!(
        LimitError::TooLarge { max: 10 }.to_string(),
        "too large (over 10 bytes)"
    );
}

/// 100,000 levels: measured on a small stack (no recursion), refused as too deep; and, with no
/// depth bound, measured exactly. The value is dismantled with `drop_iteratively`, because
/// serde_json's own drop would recurse 100,000 times.
#[test]
fn hundred_thousand_deep_on_a_small_stack() {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let v = nested_arrays(100_000);
            assert_eq!(
                check_json(&v, &JsonLimits::default()),
                Err(LimitError::TooDeep { max: 64 })
            );
            let m = measure(&v, &limits(usize::MAX, usize::MAX)).unwrap();
            assert_eq!((m.depth, m.bytes), (100_000, 200_001));
            drop_iteratively(v);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// A bound passed early stops the walk early: a million-element array past a 100-byte bound
/// is refused after about 100 bytes' worth of elements (measured by the error, and by being
/// fast even with a huge element count).
#[test]
fn stops_once_past_a_bound() {
    let v = Value::Array(vec![json!(1); 1_000_000]);
    let start = std::time::Instant::now();
    for _ in 0..1000 {
        assert_eq!(
            check_json(&v, &limits(64, 100)),
            Err(LimitError::TooLarge { max: 100 })
        );
    }
    // A full walk of a million elements 1,000 times would take far longer than this.
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The measured size is exactly serde_json's, and the check agrees with the serialised text.
    #[test]
    fn measure_agrees_with_serialisation(v in arb_json(), max in 0usize..400) {
        let text = serde_json::to_string(&v).unwrap();
        let m = measure(&v, &limits(usize::MAX, usize::MAX)).unwrap();
        prop_assert_eq!(m.bytes, text.len());
        let within = check_json(&v, &limits(usize::MAX, max)).is_ok();
        prop_assert_eq!(within, text.len() <= max);
    }
}

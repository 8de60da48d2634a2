//! Tests of bounded JSON Patch application: bombs refused while applying, exact accounting
//! (a patch within the limits at every step is never refused), atomicity.

use super::*;
use crate::protocol::limits::check_json;
use proptest::prelude::*;
use serde_json::json;

fn limits(max_depth: usize, max_bytes: usize) -> JsonLimits {
    JsonLimits {
        max_depth,
        max_bytes,
    }
}

fn size(v: &Value) -> usize {
    serde_json::to_string(v).unwrap().len()
}

/// `n` ops that each copy the whole document into a new member: the size doubles per op.
fn root_copy_bomb(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| json!({"op": "copy", "from": "", "path": format!("/n{i}")}))
        .collect()
}

/// The bomb of issue 9 (about 1.3 KB of ops, 2^40 times the state): refused, the document
/// untouched, and fast, because nothing past the bound is built.
#[test]
fn a_copy_bomb_is_refused_while_applying() {
    let ops = root_copy_bomb(40);
    assert!(serde_json::to_string(&ops).unwrap().len() < 1600);
    let mut doc = json!({"s": "x".repeat(100)});
    let before = doc.clone();
    let start = std::time::Instant::now();
    let e = patch_within(&mut doc, &ops, false, &JsonLimits::default()).unwrap_err();
    assert_eq!(
        e,
        PatchFailure::Limit("too large (over 4194304 bytes)".into())
    );
    assert_eq!(doc, before);
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

/// A smaller bomb that the unbounded `json_patch::patch` would complete (~100 MB): refused at
/// a 64 KiB bound.
#[test]
fn a_bomb_is_refused_at_a_small_bound() {
    let mut doc = json!({"s": "x".repeat(100)});
    let e = patch_within(&mut doc, &root_copy_bomb(20), false, &limits(64, 64 * 1024));
    assert!(matches!(e, Err(PatchFailure::Limit(_))), "{e:?}");
    assert_eq!(doc, json!({"s": "x".repeat(100)}));
}

/// Nesting grown one level per delta stops at the depth bound; every delta before it applies.
#[test]
fn nesting_through_deltas_stops_at_the_depth_bound() {
    let l = limits(8, 1 << 20);
    let mut doc = json!({});
    let mut path = String::new();
    for level in 1..8 {
        path.push_str("/a");
        let op = json!([{"op": "add", "path": path, "value": {}}]);
        patch_within(&mut doc, op.as_array().unwrap(), false, &l).unwrap();
        assert_eq!(
            measure(&doc, &limits(100, 1 << 20)).unwrap().depth,
            level + 1
        );
    }
    path.push_str("/a");
    let op = json!([{"op": "add", "path": path, "value": {}}]);
    let before = doc.clone();
    assert_eq!(
        patch_within(&mut doc, op.as_array().unwrap(), false, &l),
        Err(PatchFailure::Limit("too deep (over 8 levels)".into()))
    );
    assert_eq!(doc, before);
    // A move deeper is a way to nest too.
    let mut doc = json!({"a": {"b": {}}, "x": [[[[[[1]]]]]]});
    let op = json!([{"op": "move", "from": "/x", "path": "/a/b/x"}]);
    assert_eq!(
        patch_within(&mut doc, op.as_array().unwrap(), false, &l),
        Err(PatchFailure::Limit("too deep (over 8 levels)".into()))
    );
}

/// Copying and removing a large subtree over and over stays within the size bound at every
/// step but would cost minutes of CPU: the work bound refuses it.
#[test]
fn a_patch_that_does_too_much_work_is_refused() {
    let l = limits(64, 64 * 1024);
    let mut doc = json!({"big": "x".repeat(30 * 1024)});
    let mut ops = Vec::new();
    for _ in 0..100 {
        ops.push(json!({"op": "copy", "from": "/big", "path": "/copy"}));
        ops.push(json!({"op": "remove", "path": "/copy"}));
    }
    let e = patch_within(&mut doc, &ops, false, &l).unwrap_err();
    let PatchFailure::Limit(message) = e else {
        panic!("{e:?}")
    };
    assert!(message.contains("too much work"), "{message}");
    // A few rounds are fine.
    patch_within(&mut doc, &ops[..4], false, &l).unwrap();
}

#[test]
fn invalid_patches_fail_and_keep_the_document() {
    let mut doc = json!({"a": 1});
    for ops in [
        json!([{"op": "add", "path": "/b", "value": 1}, {"op": "remove", "path": "/zz"}]),
        json!([{"op": "nope", "path": "/a"}]),
    ] {
        let e = patch_within(
            &mut doc,
            ops.as_array().unwrap(),
            false,
            &JsonLimits::default(),
        );
        assert!(matches!(e, Err(PatchFailure::Invalid(_))), "{e:?}");
        assert_eq!(doc, json!({"a": 1}));
    }
    let root = json!([{"op": "replace", "path": "", "value": 1}]);
    let e = patch_within(
        &mut doc,
        root.as_array().unwrap(),
        true,
        &JsonLimits::default(),
    );
    assert!(matches!(e, Err(PatchFailure::Invalid(_))));
}

const PATHS: [&str; 10] = [
    "", "/a", "/a/b", "/a/b/-", "/a/b/0", "/arr", "/arr/-", "/arr/0", "/a/k~1x", "/x",
];
const OPS: [&str; 6] = ["add", "remove", "replace", "move", "copy", "test"];

fn arb_op() -> impl Strategy<Value = Value> {
    let value = prop_oneof![
        Just(json!(1)),
        Just(json!("str\n")),
        Just(json!({"b": [1, 2]})),
        Just(json!([[], {}])),
        Just(json!(null)),
    ];
    (0..OPS.len(), 0..PATHS.len(), 0..PATHS.len(), value).prop_map(|(o, p, f, value)| {
        json!({"op": OPS[o], "path": PATHS[p], "from": PATHS[f], "value": value})
    })
}

fn arb_doc() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({})),
        Just(json!({"a": {"b": [1]}, "arr": []})),
        Just(json!({"a": {"b": [], "k/x": "v"}, "arr": [true, {"q": 1}], "x": "é"})),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Against `json_patch` applied op by op: a patch whose every intermediate result is within
    /// the limits applies, to the same result; any other is refused and changes nothing. So the
    /// size accounting is exact (or corrected before refusing) and depth is checked per op.
    #[test]
    fn bounded_patches_agree_with_json_patch(
        doc in arb_doc(),
        ops in prop::collection::vec(arb_op(), 0..12),
        max_bytes in 2usize..160,
        max_depth in 1usize..6,
    ) {
        let l = limits(max_depth, max_bytes);
        // The reference: plain json_patch, one op at a time, noting the largest step.
        let parsed: Result<Vec<PatchOperation>, _> =
            ops.iter().map(PatchOperation::deserialize).collect();
        let mut reference = doc.clone();
        let mut within = check_json(&doc, &l).is_ok();
        let mut valid = parsed.is_ok();
        for op in parsed.iter().flatten() {
            if json_patch::patch_unsafe(&mut reference, std::slice::from_ref(op)).is_err() {
                valid = false;
                break;
            }
            within &= check_json(&reference, &l).is_ok();
        }
        let mut ours = doc.clone();
        let result = patch_within(&mut ours, &ops, false, &l);
        match result {
            Ok(()) => {
                prop_assert!(valid && within);
                prop_assert_eq!(&ours, &reference);
                prop_assert!(size(&ours) <= max_bytes);
            }
            Err(PatchFailure::Invalid(_)) => {
                prop_assert!(!valid);
                prop_assert_eq!(&ours, &doc);
            }
            Err(PatchFailure::Limit(_)) => {
                prop_assert!(!within || !valid, "refused a patch within the limits");
                prop_assert_eq!(&ours, &doc);
            }
        }
        if valid && within {
            prop_assert!(result.is_ok());
        }
    }

    /// Random copy bombs of any shape never grow the document past the bound.
    #[test]
    fn random_copy_bombs_stay_within_the_bound(
        picks in prop::collection::vec((0..PATHS.len(), 0..PATHS.len()), 1..40),
    ) {
        let l = limits(16, 4096);
        let mut doc = json!({"a": {"b": [1, 2, 3]}, "arr": ["0123456789"]});
        let ops: Vec<Value> = picks
            .iter()
            .map(|&(f, p)| json!({"op": "copy", "from": PATHS[f], "path": PATHS[p]}))
            .collect();
        let _ = patch_within(&mut doc, &ops, false, &l);
        prop_assert!(check_json(&doc, &l).is_ok());
    }
}

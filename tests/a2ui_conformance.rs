//! The official A2UI v0.9 conformance suites (`../shared/a2ui/conformance/core/`
//! `message_processor_v0_9.yaml` and `validator_v0_9.yaml`) run against `protocol::a2ui`, in the
//! way the suites' README asks of a runner: declared protocol versions and a skip list with
//! reasons, each case reported by name, one summary line per suite.
//!
//! How the cases' vocabulary maps to our processor:
//! - `catalogPaths` naming the basic catalog (v0.9 or v0.9.1) load our built-in basic catalog.
//!   The cases then create surfaces under ids of their own harnesses' fixtures (`test-catalog`,
//!   `standard`, `v09-cat`, `https://a2ui.org/basic-catalog`), so the basic catalog is also
//!   registered under those ([`SUITE_CATALOG_IDS`]); any other id stays unknown, which
//!   `test_create_surface_unknown_catalog_error` checks.
//! - `catalog` / `catalogs` are JSON catalogs (`Catalog::from_json`).
//! - `validate` cases run strict, steps in order on one processor, a failing step changing
//!   nothing; `process_messages` is strict only with `strictMode: true`.
//! - `expect` is a subset match (objects by key, arrays item by item and of equal length);
//!   an expected error matches by category, by message substring, and each expected detail by
//!   code and by path (`messages.<i>.<path inside the message>`, or its tail).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agui_studio::protocol::a2ui::pointer::resolve_path;
use agui_studio::protocol::a2ui::{
    A2uiError, Catalog, Processor, ProcessorOptions, BASIC_CATALOG_IDS,
};
use serde_json::Value;

/// The A2UI versions this runner (and the processor) support; other cases are skipped.
const SUPPORTED_PROTOCOL_VERSIONS: &[&str] = &["v0.9", "v0.9.1"];

/// Cases skipped on purpose, each with its reason. Empty: every case runs.
const SKIP_TEST_NAMES: &[(&str, &str)] = &[];

/// The suites, by file name under `conformance/core/`.
const SUITES: &[&str] = &["message_processor_v0_9", "validator_v0_9"];

/// Catalog ids the suites' own harnesses give the catalog they load from `catalogPaths`.
const SUITE_CATALOG_IDS: &[&str] = &[
    "test-catalog",
    "standard",
    "v09-cat",
    "https://a2ui.org/basic-catalog",
];

fn suite_dir() -> PathBuf {
    std::env::var_os("A2UI_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/a2ui/conformance/core")
        })
}

fn main() {
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for suite in SUITES {
        let path = suite_dir().join(format!("{suite}.yaml"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let cases: Vec<Value> =
            serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (mut p, mut f, mut s) = (0, 0, 0);
        for case in &cases {
            let name = case["name"].as_str().unwrap_or("?");
            if let Some((_, why)) = SKIP_TEST_NAMES.iter().find(|(n, _)| *n == name) {
                println!("[SKIPPED] {name}: {why}");
                s += 1;
                continue;
            }
            if let Some(v) = case["protocolVersion"].as_str() {
                if !SUPPORTED_PROTOCOL_VERSIONS.contains(&v) {
                    println!("[SKIPPED] {name}: protocol version {v} is not supported");
                    s += 1;
                    continue;
                }
            }
            match run_case(case) {
                Ok(()) => {
                    println!("{suite}/{name} ... ok");
                    p += 1;
                }
                Err(why) => {
                    println!("{suite}/{name} ... FAILED\n    {why}");
                    f += 1;
                }
            }
        }
        println!("a2ui {suite}: {p} passed, {f} failed, {s} skipped");
        passed += p;
        failed += f;
        skipped += s;
    }
    println!();
    println!("a2ui: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(1);
    }
}

/// A processor with the case's catalogs.
fn processor(case: &Value, strict: bool) -> Result<Processor, String> {
    let options = ProcessorOptions {
        strict,
        fallback_to_basic: false,
        ..ProcessorOptions::STRICT
    };
    let mut catalogs: Vec<(String, Arc<Catalog>)> = Vec::new();
    for path in case["catalogPaths"].as_array().into_iter().flatten() {
        let path = path.as_str().unwrap_or_default();
        if !path.ends_with("/catalogs/basic/catalog.json") {
            return Err(format!("catalog path {path} is not a basic catalog"));
        }
        let basic = Arc::new(Catalog::Basic);
        for id in BASIC_CATALOG_IDS.iter().chain(SUITE_CATALOG_IDS) {
            catalogs.push((id.to_string(), basic.clone()));
        }
    }
    let inline = case["catalog"]
        .as_object()
        .map(|_| vec![case["catalog"].clone()]);
    for c in inline
        .or_else(|| case["catalogs"].as_array().cloned())
        .into_iter()
        .flatten()
    {
        let id = c["catalogId"].as_str().unwrap_or_default().to_string();
        let catalog = Catalog::from_json(&c).map_err(|e| format!("catalog {id}: {e}"))?;
        catalogs.push((id, Arc::new(catalog)));
    }
    Ok(Processor::with_catalogs(options, catalogs))
}

/// The case's messages as a list (a `{messages: [...]}` wrapper unwrapped).
fn messages(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.clone(),
        Value::Object(o) => match o.get("messages") {
            Some(Value::Array(a)) => a.clone(),
            _ => vec![v.clone()],
        },
        Value::Null => Vec::new(),
        other => vec![other.clone()],
    }
}

/// Applies messages in order; the first error with the index of its message.
fn apply(p: &mut Processor, msgs: &[Value]) -> Result<(), (usize, A2uiError)> {
    for (i, m) in msgs.iter().enumerate() {
        p.process(m).map_err(|e| (i, e))?;
    }
    Ok(())
}

fn run_case(case: &Value) -> Result<(), String> {
    let expect_error = case.get("expectError").or_else(|| case.get("expect_error"));
    let strict = case["strictMode"].as_bool().unwrap_or(false);
    match case["action"].as_str().unwrap_or_default() {
        "process_messages" => {
            let mut p = processor(case, strict)?;
            let msgs = messages(&case["messages"]);
            let result = apply(&mut p, &msgs);
            outcome(result, expect_error)?;
            if expect_error.is_none() {
                check_surfaces(&p, &case["expect"])?;
            }
            Ok(())
        }
        "validate" => {
            let mut p = processor(case, true)?;
            for (n, step) in case["steps"].as_array().into_iter().flatten().enumerate() {
                let mut attempt = p.clone();
                let msgs = messages(&step["messages"]);
                let result = apply(&mut attempt, &msgs);
                let ok = result.is_ok();
                outcome(
                    result,
                    step.get("expectError").or_else(|| step.get("expect_error")),
                )
                .map_err(|e| format!("step {n}: {e}"))?;
                if ok {
                    p = attempt;
                }
            }
            Ok(())
        }
        "get_renderer_data_model" => {
            let mut p = processor(case, strict)?;
            apply(&mut p, &messages(&case["messages"]))
                .map_err(|(i, e)| format!("message {i}: {e}"))?;
            let got = p.renderer_data_model().unwrap_or(Value::Null);
            subset(&got, &case["expect"], "")
        }
        "resolve_path" => {
            let args = &case["args"];
            let got = resolve_path(
                args["path"].as_str().unwrap_or_default(),
                args["contextPath"].as_str(),
            );
            subset(&Value::String(got), &case["expect"], "")
        }
        "get_renderer_capabilities" => {
            let p = processor(case, strict)?;
            let include = case["args"]["includeInlineCatalogs"]
                .as_bool()
                .unwrap_or(false);
            subset(&p.capabilities(include), &case["expect"], "")
        }
        other => Err(format!("action {other} is not run by this runner")),
    }
}

/// Checks a result against an expected error (or its absence).
fn outcome(result: Result<(), (usize, A2uiError)>, expected: Option<&Value>) -> Result<(), String> {
    match (result, expected) {
        (Ok(()), None) => Ok(()),
        (Err((i, e)), None) => Err(format!("message {i} failed: {e}")),
        (Ok(()), Some(want)) => Err(format!("expected an error {want}, got success")),
        (Err((i, e)), Some(want)) => match_error(i, &e, want),
    }
}

fn match_error(i: usize, e: &A2uiError, want: &Value) -> Result<(), String> {
    let fail = |why: String| Err(format!("{why}; got {e} with details {:?}", e.details));
    if let Some(s) = want.as_str() {
        return if e.message.contains(s) {
            Ok(())
        } else {
            fail(format!("message should contain {s:?}"))
        };
    }
    if let Some(cat) = want["category"].as_str() {
        if e.category.as_str() != cat {
            return fail(format!("category should be {cat}"));
        }
    }
    if let Some(m) = want["message"].as_str() {
        if !e.message.contains(m) {
            return fail(format!("message should contain {m:?}"));
        }
    }
    for d in want["details"].as_array().into_iter().flatten() {
        let path = d["path"].as_str().unwrap_or_default();
        let code = d["code"].as_str();
        let found = e.details.iter().any(|got| {
            let full = format!("messages.{i}.{}", got.path);
            (full == path || full.ends_with(&format!(".{path}")))
                && code.is_none_or(|c| c == got.code.as_str())
        });
        if !found {
            return fail(format!("no detail at {path} with code {code:?}"));
        }
    }
    Ok(())
}

fn check_surfaces(p: &Processor, expect: &Value) -> Result<(), String> {
    for (id, want) in expect["surfaces"].as_object().into_iter().flatten() {
        let surface = p.surface(id);
        if let Some(exists) = want["exists"].as_bool() {
            if surface.is_some() != exists {
                return Err(format!("surface {id}: exists should be {exists}"));
            }
        }
        let Some(s) = surface else {
            if want
                .as_object()
                .is_some_and(|o| o.keys().any(|k| k != "exists"))
            {
                return Err(format!("surface {id} does not exist"));
            }
            continue;
        };
        let at = |k: &str| format!("surfaces.{id}.{k}");
        if let Some(b) = want.get("sendDataModel") {
            subset(&Value::Bool(s.send_data_model), b, &at("sendDataModel"))?;
        }
        if let Some(t) = want.get("theme") {
            subset(&Value::Object(s.theme.clone()), t, &at("theme"))?;
        }
        if let Some(d) = want.get("dataModel") {
            subset(&s.data_model, d, &at("dataModel"))?;
        }
        match want.get("components") {
            Some(Value::Array(list)) => {
                if list.len() != s.components.len() {
                    return Err(format!(
                        "surface {id}: {} components, expected {}",
                        s.components.len(),
                        list.len()
                    ));
                }
                for c in list {
                    let cid = c["id"].as_str().unwrap_or_default();
                    let got = s
                        .components
                        .get(cid)
                        .ok_or(format!("surface {id}: no component {cid}"))?;
                    subset(&Value::Object(got.value.clone()), c, &at(cid))?;
                }
            }
            Some(Value::Object(map)) => {
                for (cid, c) in map {
                    let got = s
                        .components
                        .get(cid)
                        .ok_or(format!("surface {id}: no component {cid}"))?;
                    subset(&Value::Object(got.value.clone()), c, &at(cid))?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `expected` is contained in `got`: objects by key, arrays item by item (same length),
/// numbers by value, anything else equal.
fn subset(got: &Value, expected: &Value, at: &str) -> Result<(), String> {
    match (got, expected) {
        (Value::Object(g), Value::Object(e)) => {
            for (k, ev) in e {
                let gv = g.get(k).ok_or(format!("{at}.{k} is missing"))?;
                subset(gv, ev, &format!("{at}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(g), Value::Array(e)) => {
            if g.len() != e.len() {
                return Err(format!("{at}: {} items, expected {}", g.len(), e.len()));
            }
            g.iter()
                .zip(e)
                .enumerate()
                .try_for_each(|(i, (g, e))| subset(g, e, &format!("{at}.{i}")))
        }
        (Value::Number(g), Value::Number(e)) if g.as_f64() == e.as_f64() => Ok(()),
        (g, e) if g == e => Ok(()),
        (g, e) => Err(format!("{at}: got {g}, expected {e}")),
    }
}

//! The shape of a surface's component graph: one root (`root`), every reference resolved, no
//! cycle, every component reachable from the root, the tree no deeper than the bound; and the
//! nesting of function calls inside a value.
//!
//! Both walks are iterative (an explicit stack), so a hostile chain of ten thousand components
//! or calls costs a loop, not the call stack.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::catalog::Catalog;
use super::component::Component;
use super::refs::ChildRef;

/// The id of the component every surface renders from.
pub const ROOT_ID: &str = "root";

/// What is wrong with the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Issue {
    MissingRoot,
    SelfReference(String),
    /// The ids along the cycle, the first repeated at the end.
    Cycle(Vec<String>),
    Dangling {
        from: String,
        to: String,
    },
    Orphan(String),
    TooDeep {
        id: String,
        max: usize,
    },
}

impl Issue {
    /// The message, worded so that each validator phrasing of the conformance suites is in it.
    pub fn message(&self) -> String {
        match self {
            Issue::MissingRoot => {
                format!("Missing root component: no component has id '{ROOT_ID}'")
            }
            Issue::SelfReference(id) => {
                format!("Circular reference detected: Self-reference detected on component '{id}'")
            }
            Issue::Cycle(ids) => format!(
                "Circular reference detected: Circular component reference {}",
                ids.join(" -> ")
            ),
            Issue::Dangling { from, to } => {
                format!("Dangling reference: component '{from}' refers to missing component '{to}'")
            }
            Issue::Orphan(id) => {
                format!("Orphaned component '{id}' is not reachable from '{ROOT_ID}'")
            }
            Issue::TooDeep { id, max } => {
                format!("Component '{id}' is nested deeper than {max} levels")
            }
        }
    }

    /// The component the issue is shown on.
    pub fn component(&self) -> Option<&str> {
        match self {
            Issue::MissingRoot => None,
            Issue::SelfReference(id) | Issue::Orphan(id) | Issue::TooDeep { id, .. } => Some(id),
            Issue::Cycle(ids) => ids.last().map(String::as_str),
            Issue::Dangling { from, .. } => Some(from),
        }
    }
}

/// Every issue of the graph: a missing root first (then only dangling references are looked
/// for, since everything else would be an orphan), else cycles, dangling references and depth
/// found from the root, then the orphans.
pub fn check(
    components: &BTreeMap<String, Component>,
    catalog: &Catalog,
    max_depth: usize,
) -> Vec<Issue> {
    let mut issues = Vec::new();
    if !components.contains_key(ROOT_ID) {
        issues.push(Issue::MissingRoot);
        for c in components.values() {
            for r in catalog.child_refs(&c.value) {
                if !components.contains_key(&r.id) {
                    issues.push(Issue::Dangling {
                        from: c.id.clone(),
                        to: r.id,
                    });
                }
            }
        }
        return issues;
    }
    // 1 = on the current path, 2 = done.
    let mut state: HashMap<&str, u8> = HashMap::new();
    struct Frame<'a> {
        id: &'a str,
        refs: Vec<ChildRef>,
        next: usize,
        depth: usize,
    }
    let root = &components[ROOT_ID];
    let mut stack = vec![Frame {
        id: root.id.as_str(),
        refs: catalog.child_refs(&root.value),
        next: 0,
        depth: 1,
    }];
    state.insert(ROOT_ID, 1);
    while let Some(top) = stack.last_mut() {
        let Some(r) = top.refs.get(top.next).cloned() else {
            state.insert(top.id, 2);
            stack.pop();
            continue;
        };
        top.next += 1;
        let (from, depth) = (top.id, top.depth);
        if r.id == from {
            issues.push(Issue::SelfReference(r.id));
            continue;
        }
        let Some((key, child)) = components.get_key_value(&r.id) else {
            issues.push(Issue::Dangling {
                from: from.to_string(),
                to: r.id,
            });
            continue;
        };
        match state.get(key.as_str()) {
            Some(1) => {
                let start = stack.iter().position(|f| f.id == key).unwrap_or(0);
                let mut ids: Vec<String> =
                    stack[start..].iter().map(|f| f.id.to_string()).collect();
                ids.push(key.clone());
                issues.push(Issue::Cycle(ids));
            }
            Some(_) => {}
            None if depth + 1 > max_depth => {
                issues.push(Issue::TooDeep {
                    id: key.clone(),
                    max: max_depth,
                });
                state.insert(key, 2);
            }
            None => {
                state.insert(key, 1);
                stack.push(Frame {
                    id: key,
                    refs: catalog.child_refs(&child.value),
                    next: 0,
                    depth: depth + 1,
                });
            }
        }
    }
    for id in components.keys() {
        if !state.contains_key(id.as_str()) {
            issues.push(Issue::Orphan(id.clone()));
        }
    }
    issues
}

/// The deepest nesting of function calls (`{call: …}` objects) inside `v`.
pub fn call_depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, calls)) = stack.pop() {
        match v {
            Value::Object(o) => {
                let calls = calls + usize::from(o.get("call").is_some_and(Value::is_string));
                deepest = deepest.max(calls);
                stack.extend(o.values().map(|x| (x, calls)));
            }
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, calls))),
            _ => {}
        }
    }
    deepest
}

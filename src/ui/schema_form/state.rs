//! The state of one [`super::SchemaEditor`]: the value being edited, the marks on its fields,
//! the view on screen (form or JSON), and what sending it checks.

use std::collections::BTreeMap;

use leptos::prelude::*;
use serde_json::Value;

use super::check::{check, labels};
use super::model::build;
use super::values::{set, Seg};

/// The state of one editor: create it with the schema and the starting value, pass it to
/// [`SchemaEditor`], and read what to send with [`EditorState::value`]. Cheap to copy.
#[derive(Clone, Copy)]
pub struct EditorState {
    pub(super) schema: StoredValue<Value>,
    pub(super) draft: RwSignal<Value>,
    /// Field pointer → the message under it.
    pub(super) errors: RwSignal<BTreeMap<String, String>>,
    /// Inputs whose text is no value yet (pointer → why); shown when sending.
    pub(super) bad: StoredValue<BTreeMap<String, String>>,
    /// Bumped when the form's shape changes (an item added or removed, JSON read back).
    pub(super) shape: RwSignal<u64>,
    pub(super) json_mode: RwSignal<bool>,
    pub(super) json_text: RwSignal<String>,
    pub(super) alert: RwSignal<Option<String>>,
}

impl EditorState {
    pub fn new(schema: Value, value: Value) -> Self {
        Self {
            schema: StoredValue::new(schema),
            draft: RwSignal::new(value),
            errors: RwSignal::new(BTreeMap::new()),
            bad: StoredValue::new(BTreeMap::new()),
            shape: RwSignal::new(0),
            json_mode: RwSignal::new(false),
            json_text: RwSignal::new(String::new()),
            alert: RwSignal::new(None),
        }
    }

    /// The value to send, or `None` after showing why not (fields to fix, JSON that does not
    /// parse).
    pub fn value(&self) -> Option<Value> {
        if self.json_mode.get_untracked() {
            return match serde_json::from_str::<Value>(&self.json_text.get_untracked()) {
                Ok(v) => {
                    self.alert.set(None);
                    self.draft.set(v.clone());
                    Some(v)
                }
                Err(e) => {
                    self.alert.set(Some(format!("Not valid JSON: {e}")));
                    None
                }
            };
        }
        let draft = self.draft.get_untracked();
        let node = self.schema.with_value(|s| build(s, &draft));
        let mut problems = self.bad.get_value();
        for (at, _, msg) in check(&node, &draft) {
            problems.entry(at).or_insert(msg);
        }
        if problems.is_empty() {
            self.errors.set(BTreeMap::new());
            self.alert.set(None);
            return Some(draft);
        }
        let mut names = BTreeMap::new();
        labels(&node, &mut names);
        let n = problems.len();
        let list: Vec<String> = problems
            .iter()
            .take(5)
            .map(|(at, msg)| match names.get(at).filter(|l| !l.is_empty()) {
                Some(l) => format!("{l}: {msg}"),
                None => msg.clone(),
            })
            .collect();
        let more = if n > 5 { " …" } else { "" };
        self.alert.set(Some(format!(
            "{n} field{} to fix — {}{more}",
            if n == 1 { "" } else { "s" },
            list.join(" ")
        )));
        self.errors.set(problems);
        None
    }

    /// The form's value changed shape: rebuild it, and forget marks whose pointers moved.
    pub(super) fn reshape(&self) {
        self.bad.set_value(BTreeMap::new());
        self.errors.set(BTreeMap::new());
        self.shape.update(|n| *n += 1);
    }

    /// An input's text is a value again: its marks go.
    pub(super) fn fixed(&self, at: &str) {
        self.bad.update_value(|b| drop(b.remove(at)));
        if self.errors.with_untracked(|e| e.contains_key(at)) {
            self.errors.update(|e| drop(e.remove(at)));
        }
    }

    /// What a field's text stands for: its value (set at `path`), or why it is none yet (kept
    /// for the field at pointer `at`, shown when sending).
    pub(super) fn typed(&self, path: &[Seg], at: &str, parsed: Result<Option<Value>, String>) {
        match parsed {
            Ok(v) => {
                self.edit(path, v);
                self.fixed(at);
            }
            Err(e) => self.bad.update_value(|b| drop(b.insert(at.to_string(), e))),
        }
    }

    pub(super) fn edit(&self, path: &[Seg], v: Option<Value>) {
        self.draft.update(|d| {
            set(d, path, v);
        });
    }
}

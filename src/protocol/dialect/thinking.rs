//! The retired 0.0.x `THINKING_*` events, renamed to their `REASONING_*` successors.

use serde_json::Value;

use super::fields::{add_metadata, build, take};
use super::translator::{Obj, Translator};

impl Translator {
    /// Retired THINKING_* map 1:1 onto REASONING_*; only the ids are new. No `rawEvent`: the
    /// original adds nothing but its type name, which the warning already reports, and would
    /// double every reasoning delta in the inspector. `title` has no 1.1 field and is kept as
    /// `metadata.title`.
    pub(super) fn thinking(&mut self, ty: &str, mut rest: Obj) {
        rest.shift_remove("type");
        rest.shift_remove("messageId");
        let (target, id, role) = match ty {
            "THINKING_START" => {
                if let Some(title) = take(&mut rest, "title") {
                    add_metadata(&mut rest, "title", title);
                }
                let id = self.mint("reasoning");
                self.thinking_span = Some(id.clone());
                ("REASONING_START", id, None)
            }
            "THINKING_END" => {
                let id = self
                    .thinking_span
                    .take()
                    .unwrap_or_else(|| self.mint("reasoning"));
                ("REASONING_END", id, None)
            }
            "THINKING_TEXT_MESSAGE_START" => {
                rest.shift_remove("role");
                let id = self.mint("reasoning-msg");
                self.thinking_message = Some(id.clone());
                (
                    "REASONING_MESSAGE_START",
                    id,
                    Some(Value::from("reasoning")),
                )
            }
            "THINKING_TEXT_MESSAGE_CONTENT" => {
                let id = match &self.thinking_message {
                    Some(id) => id.clone(),
                    None => self.mint("reasoning-msg"),
                };
                ("REASONING_MESSAGE_CONTENT", id, None)
            }
            _ => {
                let id = self
                    .thinking_message
                    .take()
                    .unwrap_or_else(|| self.mint("reasoning-msg"));
                ("REASONING_MESSAGE_END", id, None)
            }
        };
        self.warn(format!("translated retired {ty} into {target}"));
        let ev = build(
            target,
            [("messageId", Some(id.into())), ("role", role)],
            rest,
        );
        self.emit(Value::Object(ev));
    }
}

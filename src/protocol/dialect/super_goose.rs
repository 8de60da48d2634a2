//! Super-Goose's quirks (seed 004): reasoning events without ids, `ciphertext`, an
//! `activities` array, and plain field renames (`content`/`args` → `delta`, `RAW{payload}`).

use serde_json::Value;

use super::fields::{build, has, take, with_raw, without_type};
use super::translator::{Obj, Translator};

impl Translator {
    /// Super-Goose sends reasoning events without ids (and REASONING_MESSAGE_START without
    /// role). Openers get a fresh id; continuations get the innermost open one. A continuation
    /// with nothing open is left alone: inventing an id would hide the producer's error.
    pub(super) fn reasoning_ids(&mut self, ty: &str, obj: Obj) {
        let missing_id = !has(&obj, "messageId");
        let missing_role = ty == "REASONING_MESSAGE_START" && !has(&obj, "role");
        let id = if !missing_id {
            None
        } else {
            match ty {
                "REASONING_START" => Some(self.mint("reasoning")),
                "REASONING_MESSAGE_START" => Some(self.mint("reasoning-msg")),
                "REASONING_END" => self.open_spans.last().cloned(),
                _ => self.open_reasoning_messages.last().cloned(),
            }
        };
        if id.is_none() && !missing_role {
            return self.emit(Value::Object(obj));
        }
        let mut changes = Vec::new();
        if id.is_some() {
            changes.push("no messageId");
        }
        if missing_role {
            changes.push("no role");
        }
        self.warn_shape(ty, &changes.join(", "));
        let mut rest = without_type(&obj);
        let id = id.map(Value::from).or_else(|| take(&mut rest, "messageId"));
        let role = missing_role.then(|| Value::from("reasoning"));
        let ev = build(ty, [("messageId", id), ("role", role)], rest);
        self.emit(with_raw(ev, obj));
    }

    /// Super-Goose `REASONING_ENCRYPTED_VALUE{ciphertext}` names neither what it encrypts nor
    /// which entity: reasoning is what the event family is about, so it is taken to belong to
    /// the most recent reasoning message (if none is known, `entityId` stays absent).
    pub(super) fn encrypted_value(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let value = take(&mut rest, "ciphertext");
        let subtype = take(&mut rest, "subtype").unwrap_or_else(|| "message".into());
        let entity = take(&mut rest, "entityId")
            .or_else(|| self.last_reasoning_message.clone().map(Value::from));
        self.warn_shape(
            "REASONING_ENCRYPTED_VALUE",
            "ciphertext instead of encryptedValue",
        );
        let ev = build(
            "REASONING_ENCRYPTED_VALUE",
            [
                ("subtype", Some(subtype)),
                ("entityId", entity),
                ("encryptedValue", value),
            ],
            rest,
        );
        self.emit(with_raw(ev, obj));
    }

    /// Super-Goose `ACTIVITY_SNAPSHOT{activities:[…]}` snapshots every activity at once; 1.1
    /// snapshots one activity message per event, so it becomes one event per element. The
    /// element's shape is not documented: `id`/`messageId`, `activityType`/`type`/`kind` and an
    /// object `content` are used when present, otherwise the element's other fields are the
    /// content.
    pub(super) fn activities(&mut self, obj: Obj) {
        let mut rest = without_type(&obj);
        let list = match rest.shift_remove("activities") {
            Some(Value::Array(list)) => list,
            _ => Vec::new(),
        };
        self.warn_shape("ACTIVITY_SNAPSHOT", "an activities array");
        let mut raw = Some(obj);
        for activity in list {
            let Value::Object(mut activity) = activity else {
                self.warn("dropped an ACTIVITY_SNAPSHOT activity that is not an object".into());
                continue;
            };
            let id = take(&mut activity, "messageId")
                .or_else(|| take(&mut activity, "id"))
                .unwrap_or_else(|| self.mint("activity").into());
            let kind = take(&mut activity, "activityType")
                .or_else(|| take(&mut activity, "type"))
                .or_else(|| take(&mut activity, "kind"))
                .unwrap_or_else(|| "activity".into());
            let replace = take(&mut activity, "replace");
            let content = match activity.shift_remove("content") {
                Some(Value::Object(content)) => content,
                Some(other) => {
                    activity.insert("content".into(), other);
                    activity
                }
                None => activity,
            };
            let ev = build(
                "ACTIVITY_SNAPSHOT",
                [
                    ("messageId", Some(id)),
                    ("activityType", Some(kind)),
                    ("content", Some(Value::Object(content))),
                    ("replace", replace),
                ],
                rest.clone(),
            );
            // The original rides on the first event only; copying it onto each would multiply
            // the whole snapshot by the number of activities.
            match raw.take() {
                Some(raw) => self.emit(with_raw(ev, raw)),
                None => self.emit(Value::Object(ev)),
            }
        }
    }

    /// Field renames that change nothing else (Super-Goose `content`/`args`, `RAW{payload}`).
    pub(super) fn rename(
        &mut self,
        obj: Obj,
        from: &str,
        to: &str,
        what: &str,
        convert: fn(Value) -> Value,
    ) {
        let ty = obj
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        self.warn_shape(&ty, what);
        let mut ev = Obj::new();
        for (key, value) in &obj {
            if key == from {
                ev.insert(to.into(), convert(value.clone()));
            } else {
                ev.insert(key.clone(), value.clone());
            }
        }
        self.emit(with_raw(ev, obj));
    }
}

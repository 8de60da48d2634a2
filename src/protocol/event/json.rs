//! An event's wire form: the JSON object `to_value` writes and `from_value` reads, the base
//! fields (`timestamp`, `rawEvent`, `metadata`, `subagentRunId`) beside the body.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Event, EventKind, UNATTRIBUTABLE};
use crate::protocol::types::JsonObject;

impl Event {
    /// The wire JSON object.
    pub fn to_value(&self) -> Value {
        let mut v = serde_json::to_value(&self.kind).expect("events always serialise");
        if let Value::Object(map) = &mut v {
            if let Some(t) = self.timestamp {
                map.insert("timestamp".into(), Value::from(t));
            }
            if let Some(r) = &self.raw_event {
                map.insert("rawEvent".into(), (**r).clone());
            }
            if let Some(m) = &self.metadata {
                map.insert("metadata".into(), Value::Object((**m).clone()));
            }
            if let Some(s) = &self.subagent_run_id {
                if self.kind.is_attributable() {
                    map.insert("subagentRunId".into(), Value::String(s.clone()));
                }
            }
        }
        v
    }

    /// The wire JSON text (compact, one line): the text of [`Event::to_value`], written
    /// directly. The body is an internally tagged enum, so it prints as an object (`{"type":…}`)
    /// none of whose fields is a base one; the base fields follow it in the order `to_value`
    /// inserts them. (Measured: building the `Value` first was a sixth of the server's CPU on a
    /// fast stream.)
    pub fn to_json(&self) -> String {
        let mut out = match super::delta_json::open_delta_body(&self.kind) {
            Some(body) => body,
            None => {
                let mut out = serde_json::to_vec(&self.kind).expect("events always serialise");
                debug_assert!(out.first() == Some(&b'{') && out.last() == Some(&b'}'));
                out.pop();
                out
            }
        };
        fn field(out: &mut Vec<u8>, name: &str, value: &impl Serialize) {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            serde_json::to_writer(&mut *out, value).expect("events always serialise");
        }
        if let Some(t) = self.timestamp {
            out.extend_from_slice(b",\"timestamp\":");
            out.extend_from_slice(itoa::Buffer::new().format(t).as_bytes());
        }
        if let Some(r) = &self.raw_event {
            field(&mut out, "rawEvent", r);
        }
        if let Some(m) = &self.metadata {
            field(&mut out, "metadata", m);
        }
        if let Some(s) = &self.subagent_run_id {
            if self.kind.is_attributable() {
                field(&mut out, "subagentRunId", s);
            }
        }
        out.push(b'}');
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// Parse the wire JSON object. Unknown fields are ignored here; the enforcement stage is
    /// what reports them. A missing or mistyped known field is an error.
    pub fn from_value(value: Value) -> Result<Event, serde_json::Error> {
        let Value::Object(mut map) = value else {
            return Err(serde::de::Error::custom("an event must be a JSON object"));
        };
        let timestamp = take_typed::<i64>(&mut map, "timestamp")?;
        let raw_event = take_typed::<Value>(&mut map, "rawEvent")?;
        let metadata = take_typed::<JsonObject>(&mut map, "metadata")?;
        let attributable = map
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| !UNATTRIBUTABLE.contains(&t));
        let subagent_run_id = if attributable {
            take_typed::<String>(&mut map, "subagentRunId")?
        } else {
            None
        };
        let kind = EventKind::parse_value(Value::Object(map))?;
        Ok(Event {
            kind,
            timestamp,
            raw_event: raw_event.map(Box::new),
            metadata: metadata.map(Box::new),
            subagent_run_id,
        })
    }
}

/// Remove `key` and parse it; `null` counts as absent (legacy producers send it).
fn take_typed<T: serde::de::DeserializeOwned>(
    map: &mut Map<String, Value>,
    key: &str,
) -> Result<Option<T>, serde_json::Error> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v)
            .map(Some)
            .map_err(|e| serde::de::Error::custom(format!("{key}: {e}"))),
    }
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Event::from_value(v).map_err(serde::de::Error::custom)
    }
}

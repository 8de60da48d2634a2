//! AG-UI 1.1 `AgentCapabilities`: reading a document another party published (a foreign agent's)
//! down to what the schema defines, bounded, and the questions a client asks of one (does the
//! agent take attachments, pause for a human, reason?).
//!
//! An omitted field means *unknown*, never *unsupported* (the schema says so), so the readers
//! here answer "no" only for an explicit `false`, and [`sanitize`] drops what it cannot vouch
//! for instead of inventing a value.

use serde_json::{Map, Value};

/// Most entries kept in a list (`tools.items`, `multiAgent.subagents`,
/// `output.supportedMimeTypes`): a published document is foreign input.
pub const MAX_LIST: usize = 128;
/// Longest string kept (a name, a description, a MIME type); longer ones are dropped.
pub const MAX_STRING: usize = 4096;
/// Largest open JSON value kept (`identity.metadata`, `custom`, a tool's schema), serialized.
pub const MAX_OPEN_BYTES: usize = 16 * 1024;

/// What a field of a group may hold.
#[derive(Clone, Copy)]
enum Kind {
    Bool,
    Str,
    /// A non-negative integer up to 2^53 - 1.
    Count,
    Strings,
    Tools,
    Subagents,
    /// Open JSON (an object for metadata).
    OpenObject,
    Group(&'static [(&'static str, Kind)]),
}

use Kind::*;

const IDENTITY: &[(&str, Kind)] = &[
    ("name", Str),
    ("type", Str),
    ("description", Str),
    ("version", Str),
    ("provider", Str),
    ("documentationUrl", Str),
    ("metadata", OpenObject),
];
const TRANSPORT: &[(&str, Kind)] = &[
    ("streaming", Bool),
    ("websocket", Bool),
    ("httpBinary", Bool),
    ("pushNotifications", Bool),
    ("resumable", Bool),
];
const TOOLS: &[(&str, Kind)] = &[
    ("supported", Bool),
    ("items", Tools),
    ("parallelCalls", Bool),
    ("clientProvided", Bool),
];
const OUTPUT: &[(&str, Kind)] = &[("structuredOutput", Bool), ("supportedMimeTypes", Strings)];
const STATE: &[(&str, Kind)] = &[
    ("snapshots", Bool),
    ("deltas", Bool),
    ("memory", Bool),
    ("persistentState", Bool),
];
const MULTI_AGENT: &[(&str, Kind)] = &[
    ("supported", Bool),
    ("delegation", Bool),
    ("handoffs", Bool),
    ("subagents", Subagents),
];
const REASONING: &[(&str, Kind)] = &[
    ("supported", Bool),
    ("streaming", Bool),
    ("encrypted", Bool),
];
const MEDIA_IN: &[(&str, Kind)] = &[
    ("image", Bool),
    ("audio", Bool),
    ("video", Bool),
    ("pdf", Bool),
    ("file", Bool),
];
const MEDIA_OUT: &[(&str, Kind)] = &[("image", Bool), ("audio", Bool)];
const MULTIMODAL: &[(&str, Kind)] = &[("input", Group(MEDIA_IN)), ("output", Group(MEDIA_OUT))];
const EXECUTION: &[(&str, Kind)] = &[
    ("codeExecution", Bool),
    ("sandboxed", Bool),
    ("maxIterations", Count),
    ("maxExecutionTime", Count),
];
const HITL: &[(&str, Kind)] = &[
    ("supported", Bool),
    ("approvals", Bool),
    ("interventions", Bool),
    ("feedback", Bool),
    ("interrupts", Bool),
    ("approveWithEdits", Bool),
];
/// The whole document: every group the 1.1 schema defines.
const CAPABILITIES: &[(&str, Kind)] = &[
    ("identity", Group(IDENTITY)),
    ("transport", Group(TRANSPORT)),
    ("tools", Group(TOOLS)),
    ("output", Group(OUTPUT)),
    ("state", Group(STATE)),
    ("multiAgent", Group(MULTI_AGENT)),
    ("reasoning", Group(REASONING)),
    ("multimodal", Group(MULTIMODAL)),
    ("execution", Group(EXECUTION)),
    ("humanInTheLoop", Group(HITL)),
    ("custom", OpenObject),
];

/// The part of `doc` the 1.1 schema defines, every value of the right type and within the
/// bounds above; anything else (unknown keys, wrong types, oversized values) is left out, so
/// it reads as undeclared. Nulls inside the open members (`identity.metadata`, `custom`) are
/// data and kept. Never fails: a document that is not an object gives `{}`.
pub fn sanitize(doc: &Value) -> Value {
    Value::Object(group(doc, CAPABILITIES))
}

fn group(v: &Value, fields: &[(&str, Kind)]) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(o) = v.as_object() else {
        return out;
    };
    for (name, kind) in fields {
        if let Some(kept) = o.get(*name).and_then(|x| field(x, *kind)) {
            out.insert((*name).to_string(), kept);
        }
    }
    out
}

fn short(v: &Value) -> Option<Value> {
    v.as_str()
        .filter(|s| s.len() <= MAX_STRING)
        .map(|s| Value::String(s.to_string()))
}

fn open_small(v: &Value) -> Option<Value> {
    let size = serde_json::to_vec(v).map_or(usize::MAX, |b| b.len());
    (size <= MAX_OPEN_BYTES).then(|| v.clone())
}

fn field(v: &Value, kind: Kind) -> Option<Value> {
    match kind {
        Bool => v.as_bool().map(Value::Bool),
        Str => short(v),
        Count => v
            .as_u64()
            .filter(|n| *n <= 9_007_199_254_740_991)
            .map(Value::from),
        Strings => list(v, short),
        Tools => list(v, tool),
        Subagents => list(v, subagent),
        OpenObject => v.as_object().and_then(|_| open_small(v)),
        Group(fields) => v.is_object().then(|| Value::Object(group(v, fields))),
    }
}

fn list(v: &Value, item: fn(&Value) -> Option<Value>) -> Option<Value> {
    let a = v.as_array()?;
    Some(Value::Array(
        a.iter().take(MAX_LIST).filter_map(item).collect(),
    ))
}

/// A `Tool`: `name` and `description` required; `parameters` (any JSON but null) and
/// `metadata` optional.
fn tool(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let mut out = Map::new();
    out.insert("name".into(), short(o.get("name")?)?);
    out.insert("description".into(), short(o.get("description")?)?);
    if let Some(p) = o.get("parameters").filter(|p| !p.is_null()) {
        out.insert("parameters".into(), open_small(p)?);
    }
    if let Some(m) = o.get("metadata") {
        out.insert(
            "metadata".into(),
            m.as_object().and_then(|_| open_small(m))?,
        );
    }
    Some(Value::Object(out))
}

/// A `SubagentInfo`: `name` required, `description` optional.
fn subagent(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let mut out = Map::new();
    out.insert("name".into(), short(o.get("name")?)?);
    if let Some(d) = o.get("description") {
        out.insert("description".into(), short(d)?);
    }
    Some(Value::Object(out))
}

/// `caps[group][key]` as a boolean (None: not declared).
fn flag(caps: &Value, path: &[&str]) -> Option<bool> {
    path.iter()
        .try_fold(caps, |v, k| v.get(*k))
        .and_then(Value::as_bool)
}

/// Whether a user may attach media for this agent: false only when its `multimodal.input` is
/// declared and accepts no kind at all (an agent that declares nothing may take them).
pub fn accepts_attachments(caps: &Value) -> bool {
    let Some(input) = caps.pointer("/multimodal/input").filter(|v| v.is_object()) else {
        return true;
    };
    let kinds = ["image", "audio", "video", "pdf", "file"];
    let declared: Vec<Option<bool>> = kinds
        .iter()
        .map(|k| input.get(*k).and_then(Value::as_bool))
        .collect();
    // Every kind declared false: no attachments. Any kind true or unknown: some may work.
    !declared.iter().all(|d| *d == Some(false))
}

/// Whether the agent may pause for a human (approvals, interrupts, frontend tools it leaves
/// to the user): false only when `humanInTheLoop.supported` is declared false.
pub fn supports_hitl(caps: &Value) -> bool {
    flag(caps, &["humanInTheLoop", "supported"]) != Some(false)
}

/// Whether the agent shows its reasoning: false only when `reasoning.supported` is declared
/// false.
pub fn reasons(caps: &Value) -> bool {
    flag(caps, &["reasoning", "supported"]) != Some(false)
}

/// Whether an interrupt on a tool call may be answered with edited arguments: false only when
/// `humanInTheLoop.approveWithEdits` is declared false.
pub fn approves_with_edits(caps: &Value) -> bool {
    flag(caps, &["humanInTheLoop", "approveWithEdits"]) != Some(false)
}

/// Whether the agent declares its reasoning encrypted (`reasoning.encrypted: true`).
pub fn encrypted_reasoning(caps: &Value) -> bool {
    flag(caps, &["reasoning", "encrypted"]) == Some(true)
}

#[cfg(test)]
mod tests;

//! Inspection of a recorded stream: detect its format (raw SSE, JSON Lines, a JSON array of
//! events, or a conformance fixture), run it through the full client pipeline and build one JSON
//! report (with a summary of each A2UI surface, `a2uiSurfaces`, when there are any). Pure, so
//! the CLI, the tests and the browser share it.

use super::error::ProtocolError;
use serde_json::{json, Value};

use super::compat::{parse_version, prepare_request, Version};
use super::pipeline::{Pipeline, PipelineOptions};
use super::RunAgentInput;

/// What was read: the stream in one of its forms, plus what a fixture says about the run.
pub enum Recording {
    Sse(Vec<u8>),
    Events(Vec<Value>),
}

/// A recorded stream and the context it was recorded in.
pub struct Inspection {
    pub recording: Recording,
    pub input: Option<Value>,
    pub max_protocol_version: Option<Version>,
}

/// Detect the format: a JSON array of events, a conformance fixture, JSON Lines, or raw SSE.
pub fn parse_recording(bytes: Vec<u8>) -> Result<Inspection, ProtocolError> {
    let plain = |recording| Inspection {
        recording,
        input: None,
        max_protocol_version: None,
    };
    let text = String::from_utf8_lossy(&bytes);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
            return Ok(match v {
                Value::Array(events) => plain(Recording::Events(events)),
                Value::Object(ref o) if o.get("stream").is_some_and(Value::is_array) => fixture(v)?,
                single => plain(Recording::Events(vec![single])),
            });
        }
        if trimmed.starts_with('{') && !looks_like_sse(trimmed) {
            let mut events = Vec::new();
            for (n, line) in trimmed.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                events.push(serde_json::from_str(line).map_err(|e| {
                    ProtocolError::Recording(format!("line {}: not a JSON event: {e}", n + 1))
                })?);
            }
            return Ok(plain(Recording::Events(events)));
        }
    }
    Ok(plain(Recording::Sse(bytes)))
}

fn looks_like_sse(text: &str) -> bool {
    text.lines().any(|l| {
        l.starts_with("data:")
            || l.starts_with("event:")
            || l.starts_with("id:")
            || l.starts_with(':')
    })
}

fn fixture(v: Value) -> Result<Inspection, ProtocolError> {
    let stream = v["stream"].as_array().cloned().unwrap_or_default();
    let max = match v
        .pointer("/client/maxProtocolVersion")
        .and_then(Value::as_str)
    {
        Some(s) => Some(
            parse_version(s)
                .ok_or_else(|| ProtocolError::Recording(format!("bad maxProtocolVersion '{s}'")))?,
        ),
        None => None,
    };
    // A fixture's run always has a request; its input carries only what the fixture asserts
    // about, and the ids come from its stream.
    let input = Some(v.get("input").cloned().unwrap_or_else(|| json!({}))).map(|mut input| {
        if let Some(o) = input.as_object_mut() {
            let started = stream
                .iter()
                .find(|e| e["type"] == "RUN_STARTED")
                .cloned()
                .unwrap_or(Value::Null);
            for (k, fallback) in [("threadId", "thread"), ("runId", "run")] {
                if !o.contains_key(k) {
                    let id = started[k].as_str().unwrap_or(fallback).to_string();
                    o.insert(k.into(), Value::String(id));
                }
            }
            o.entry("messages").or_insert(json!([]));
        }
        input
    });
    Ok(Inspection {
        recording: Recording::Events(stream),
        input,
        max_protocol_version: max,
    })
}

/// How a recording is read: its pipeline (for the fixture's input and protocol version when
/// it has them), the input as prepared, and what preparing it warned about. The CLI's report
/// and the browser's "Open recording" both start here.
pub struct Reader {
    pub pipeline: Pipeline,
    pub input: Option<RunAgentInput>,
    pub request: Option<Value>,
    pub warnings: Vec<String>,
}

/// The reader of an inspection's recording, or why its input is not valid.
pub fn reader(
    input: Option<Value>,
    max_protocol_version: Option<Version>,
) -> Result<Reader, (String, Vec<String>)> {
    let options = PipelineOptions {
        max_protocol_version,
    };
    let Some(raw) = input else {
        return Ok(Reader {
            pipeline: Pipeline::new(options),
            input: None,
            request: None,
            warnings: Vec::new(),
        });
    };
    let (prepared, warnings) = prepare_request(raw, max_protocol_version);
    match serde_json::from_value::<RunAgentInput>(prepared.clone()) {
        Ok(input) => Ok(Reader {
            pipeline: Pipeline::for_input(&input, options),
            input: Some(input),
            request: Some(prepared),
            warnings,
        }),
        Err(e) => Err((format!("the RunAgentInput is not valid: {e}"), warnings)),
    }
}

/// Run an inspection and build the report.
pub fn inspect(inspection: Inspection) -> Value {
    let Reader {
        mut pipeline,
        request,
        warnings: mut pre_warnings,
        ..
    } = match reader(inspection.input, inspection.max_protocol_version) {
        Ok(r) => r,
        Err((error, warnings)) => {
            return json!({
                "outcome": "failed", "error": error,
                "runErrors": [], "warnings": warnings, "events": [],
                "messages": [], "state": {},
            })
        }
    };
    let mut delivered = Vec::new();
    match inspection.recording {
        Recording::Sse(bytes) => delivered.extend(pipeline.push_bytes(&bytes)),
        Recording::Events(events) => {
            for e in events {
                delivered.extend(pipeline.push_value(None, e));
            }
        }
    }
    delivered.extend(pipeline.finish());
    pre_warnings.append(&mut pipeline.warnings);
    let mut report = json!({
        "outcome": pipeline.outcome().as_str(),
        "error": pipeline.error(),
        "runErrors": pipeline.run_errors.iter().map(|(message, code)| {
            let mut o = json!({ "message": message });
            if let Some(c) = code { o["code"] = json!(c); }
            o
        }).collect::<Vec<_>>(),
        "warnings": pre_warnings,
        "events": delivered.iter().map(|d| d.event.to_value()).collect::<Vec<_>>(),
        "messages": pipeline.conversation.messages_json(),
        "state": pipeline.conversation.state,
    });
    if let Some(r) = request {
        report["request"] = r;
    }
    // Only recordings with A2UI surfaces get the key, so other reports stay as they were.
    let surfaces = super::a2ui::summary::summarize(&pipeline.conversation.messages);
    if !surfaces.is_empty() {
        report["a2uiSurfaces"] = Value::Array(surfaces);
    }
    report
}

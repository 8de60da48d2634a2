//! The pure half of the A2UI renderer: an activity message read into surfaces (through the
//! protocol's processor, leniently), the user's local edits laid over a surface's data model,
//! the lifecycle status, the clock in ISO 8601 and DOM ids. No signals here, so all of it is
//! unit-tested without a reactive runtime.

use serde_json::{Map, Value};

use crate::protocol::a2ui::{
    basic_enum, surface_content, write_data, A2uiLimits, Processor, ProcessorOptions, Surface,
    SurfaceContent, SurfaceIssue, ACTIVITY_TYPE,
};
use crate::protocol::types::Message;
use crate::ui::thread_item::iso_utc;

/// Local edits a surface keeps (one per path; the oldest go first past this).
pub const MAX_EDITS: usize = 256;

/// One surface as the renderer shows it: its state and everything wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Snap {
    pub surface: Surface,
    pub issues: Vec<SurfaceIssue>,
}

/// The lifecycle before a surface exists (`content.status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// `building`, `retrying`, `failed` or what the producer said.
    pub status: String,
    /// One line for a person ("attempt 2 of 3", the error).
    pub text: String,
}

/// An activity message read for rendering.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Processed {
    pub status: Option<Status>,
    /// Messages the processor refused, and contents it could not read.
    pub errors: Vec<String>,
    pub surfaces: Vec<Snap>,
}

/// Reads an `a2ui-surface` activity: its operations applied in order by a lenient processor
/// (a refused message is listed and the rest still apply), or its lifecycle status.
pub fn process(message: &Message) -> Processed {
    let Message::Activity(a) = message else {
        return Processed {
            errors: vec!["not an activity message".into()],
            ..Default::default()
        };
    };
    if a.activity_type != ACTIVITY_TYPE {
        return Processed {
            errors: vec![format!(
                "activity type '{}' is not {ACTIVITY_TYPE}",
                a.activity_type
            )],
            ..Default::default()
        };
    }
    match surface_content(&a.content) {
        SurfaceContent::Status { status, detail } => Processed {
            status: Some(Status {
                status: status.to_string(),
                text: status_text(status, detail),
            }),
            ..Default::default()
        },
        SurfaceContent::Unknown => Processed {
            errors: vec!["the activity has neither a2ui_operations nor a status".into()],
            ..Default::default()
        },
        SurfaceContent::Operations(ops) => {
            let mut p = Processor::new(ProcessorOptions::RENDERER);
            let errors = p
                .process_each(ops)
                .into_iter()
                .map(|(i, e)| format!("Message {}: {}", i + 1, e.message))
                .collect();
            let limits = p.options.limits;
            let surfaces = p
                .surfaces()
                .iter()
                .map(|s| Snap {
                    surface: s.clone(),
                    issues: s.issues(&limits),
                })
                .collect();
            Processed {
                status: None,
                errors,
                surfaces,
            }
        }
    }
}

/// The line shown under a lifecycle status.
pub fn status_text(status: &str, detail: &Map<String, Value>) -> String {
    let n = |k: &str| detail.get(k).and_then(Value::as_u64);
    let error = detail
        .get("error")
        .and_then(Value::as_str)
        .map(|e| truncate(e, 300));
    match status {
        "building" => match n("progressTokens") {
            Some(t) => format!("Building the surface… ({t} tokens so far)"),
            None => "Building the surface…".into(),
        },
        "retrying" => match (n("attempt"), n("maxAttempts")) {
            (Some(a), Some(m)) => {
                format!("The surface was not valid; retrying (attempt {a} of {m})…")
            }
            _ => "The surface was not valid; retrying…".into(),
        },
        "failed" => match error {
            Some(e) => format!("The surface could not be built: {e}"),
            None => "The surface could not be built.".into(),
        },
        other => truncate(other, 100),
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max).collect();
    t.push('…');
    t
}

/// The data model with the user's edits laid over it, in the order they were made. An edit
/// that no longer fits (the agent's model changed shape) is skipped.
pub fn apply_edits(model: &Value, edits: &[(String, Value)], limits: &A2uiLimits) -> Value {
    let mut out = model.clone();
    for (path, v) in edits {
        let _ = write_data(&mut out, Some(path), Some(v.clone()), limits);
    }
    out
}

/// Records an edit: the latest value per path, at most [`MAX_EDITS`] paths.
pub fn push_edit(edits: &mut Vec<(String, Value)>, path: String, value: Value) {
    edits.retain(|(p, _)| *p != path);
    edits.push((path, value));
    if edits.len() > MAX_EDITS {
        edits.remove(0);
    }
}

/// Now, in ISO 8601 (the browser's clock; the server's where there is no browser).
pub fn now_iso() -> String {
    #[cfg(feature = "hydrate")]
    let ms = js_sys::Date::now() as i64;
    #[cfg(not(feature = "hydrate"))]
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    iso_utc(ms)
}

/// A DOM id from agent-chosen parts: only `[A-Za-z0-9_-]` kept, so ids stay plain tokens.
pub fn dom_id(parts: &[&str]) -> String {
    let mut out = String::from("a2ui");
    for p in parts {
        out.push('-');
        out.extend(p.chars().take(64).map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        }));
    }
    out
}

/// The value of an enum property (`(component, property)` of the basic catalog), kept only
/// when the catalog allows it (else `default`): class names are built from it.
pub fn pick<'a>(
    v: Option<&'a Value>,
    (component, prop): (&str, &str),
    default: &'a str,
) -> &'a str {
    v.and_then(Value::as_str)
        .filter(|s| basic_enum(component, prop).contains(s))
        .unwrap_or(default)
}

/// `#rrggbb` and nothing else (the theme's `primaryColor` goes into a style attribute).
pub fn hex_color(v: Option<&Value>) -> Option<String> {
    let s = v?.as_str()?;
    (s.len() == 7 && s.starts_with('#') && s[1..].bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| s.to_string())
}

/// A glyph for the catalog's icon names (the name itself is the accessible name).
pub fn icon_glyph(name: &str) -> &'static str {
    match name {
        "add" => "+",
        "arrowBack" => "←",
        "arrowForward" => "→",
        "check" => "✓",
        "close" => "✕",
        "delete" => "🗑",
        "edit" => "✎",
        "error" | "warning" => "⚠",
        "favorite" => "♥",
        "favoriteOff" => "♡",
        "help" => "?",
        "home" => "⌂",
        "info" => "ℹ",
        "lock" => "🔒",
        "lockOpen" => "🔓",
        "mail" => "✉",
        "menu" => "☰",
        "moreVert" => "⋮",
        "moreHoriz" => "⋯",
        "pause" => "⏸",
        "play" => "▶",
        "refresh" => "↻",
        "search" => "⌕",
        "send" => "➤",
        "settings" => "⚙",
        "star" => "★",
        "starHalf" => "⯨",
        "starOff" => "☆",
        "stop" => "⏹",
        "phone" | "call" => "☎",
        "person" | "accountCircle" => "👤",
        "calendarToday" | "event" => "📅",
        "download" => "⤓",
        "upload" => "⤒",
        "share" => "⇪",
        "print" => "⎙",
        "skipNext" => "⏭",
        "skipPrevious" => "⏮",
        "fastForward" => "⏩",
        "rewind" => "⏪",
        _ => "◆",
    }
}

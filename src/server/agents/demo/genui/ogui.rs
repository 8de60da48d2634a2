//! `ogui`: open generative UI, the way CopilotKit's `OpenGenerativeUIMiddleware` turns a
//! streamed `generateSandboxedUi` tool call into an `open-generative-ui` activity: message id
//! `<toolCallId>-activity`, a snapshot `{initialHeight, generating: true}`, then one
//! `ACTIVITY_DELTA` `add` per parameter as it completes (`css` + `cssComplete`, `html` chunks
//! appended to `/html` then `htmlComplete`, `jsFunctions` + `jsFunctionsComplete`,
//! `jsExpressions` items then `jsExpressionsComplete`) and `generating: false` at the call's end.
//!
//! The HTML runs only in a sandboxed frame; its script animates a counter and posts the frame's
//! height to the page as `{type: "__ck_resize", height}`, the message CopilotKit's renderer
//! sizes the frame by.

use serde_json::{json, Value};

use crate::protocol::event::EventKind;
use crate::protocol::types::Content;
use crate::server::agents::{AgentError, RunContext, RunEnd};

use super::super::text::stream_text;
use super::super::tools::{pause, pieces};
use super::{delta, snapshot};

/// The activity type.
pub(super) use crate::protocol::genui::OPEN_GENERATIVE_UI as OGUI_ACTIVITY;
/// The tool CopilotKit's runtime watches for.
pub(super) const OGUI_TOOL: &str = "generateSandboxedUi";
const INITIAL_HEIGHT: u32 = 220;

pub(super) const CSS: &str =
    "body{font-family:system-ui,-apple-system,sans-serif;margin:0;padding:12px;color:#09090b}\
.card{border:1px solid #e5e7eb;border-radius:8px;padding:16px}\
.label{margin:0;color:#71717a;font-size:14px}\
.count{margin:4px 0 12px;font-size:40px;font-weight:600}\
.bar{height:8px;background:#f4f4f5;border-radius:4px;overflow:hidden}\
.fill{height:100%;width:0;background:#2563eb;transition:width 1.2s ease-out}\
.note{margin:12px 0 0;color:#71717a;font-size:12px}";

pub(super) const HTML: &str = "<div class=\"card\"><p class=\"label\">Visitors today</p>\
<p class=\"count\" id=\"count\">0</p><div class=\"bar\"><div class=\"fill\" id=\"fill\"></div></div>\
<p class=\"note\">Drawn by HTML the agent streamed; a script inside the sandbox animates it and reports its height.</p></div>";

pub(super) const JS_FUNCTIONS: &str = "function reportHeight() {\n\
  parent.postMessage({ type: \"__ck_resize\", height: Math.ceil(document.body.scrollHeight) }, \"*\");\n\
}\n\
function animateCounter(id, to, ms) {\n\
  var el = document.getElementById(id), start = null, done = false;\n\
  function finish() {\n\
    if (done) return;\n\
    done = true;\n\
    el.textContent = to.toLocaleString(\"en-US\");\n\
    reportHeight();\n\
  }\n\
  function step(t) {\n\
    if (done) return;\n\
    if (start === null) start = t;\n\
    var k = Math.min(1, (t - start) / ms);\n\
    el.textContent = Math.round(to * k).toLocaleString(\"en-US\");\n\
    if (k < 1) requestAnimationFrame(step); else finish();\n\
  }\n\
  requestAnimationFrame(step);\n\
  // A frame out of view gets no animation frames: the count still ends where it should.\n\
  setTimeout(finish, ms + 100);\n\
}\n";

pub(super) const JS_EXPRESSIONS: [&str; 3] = [
    "animateCounter('count', 1280, 1200)",
    "document.getElementById('fill').style.width = '72%'",
    "reportHeight()",
];

/// `s` as the inside of a JSON string literal (what a model streams between the quotes).
fn escaped(s: &str) -> String {
    let quoted = Value::from(s).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

fn add(path: &str, value: Value) -> Value {
    json!({"op": "add", "path": path, "value": value})
}

pub async fn ogui(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let intro = stream_text(ctx, "I will generate a small sandboxed UI: HTML, CSS and a script, streamed as they are written.").await?;
    let call = ctx.new_id("call");
    let id = format!("{call}-activity");
    ctx.emit(EventKind::ToolCallStart {
        tool_call_id: call.clone(),
        tool_call_name: OGUI_TOOL.into(),
        parent_message_id: Some(intro),
    })
    .await?;
    // Each step: the piece of the arguments the model streams, then what the activity gains.
    let mut steps: Vec<(String, Vec<Value>)> =
        vec![(format!("{{\"initialHeight\":{INITIAL_HEIGHT},"), Vec::new())];
    steps.push((
        format!("\"css\":\"{}\",", escaped(CSS)),
        vec![add("/css", json!(CSS)), add("/cssComplete", json!(true))],
    ));
    for (i, chunk) in pieces(HTML, 90).into_iter().enumerate() {
        let lead = if i == 0 { "\"html\":\"" } else { "" };
        let mut ops = Vec::new();
        if i == 0 {
            ops.push(add("/html", json!([])));
        }
        ops.push(add("/html/-", json!(chunk)));
        steps.push((format!("{lead}{}", escaped(chunk)), ops));
    }
    steps.push(("\",".into(), vec![add("/htmlComplete", json!(true))]));
    steps.push((
        format!("\"jsFunctions\":\"{}\",", escaped(JS_FUNCTIONS)),
        vec![
            add("/jsFunctions", json!(JS_FUNCTIONS)),
            add("/jsFunctionsComplete", json!(true)),
        ],
    ));
    for (i, e) in JS_EXPRESSIONS.iter().enumerate() {
        let lead = if i == 0 { "\"jsExpressions\":[" } else { "," };
        let mut ops = Vec::new();
        if i == 0 {
            ops.push(add("/jsExpressions", json!([])));
        }
        ops.push(add("/jsExpressions/-", json!(e)));
        steps.push((format!("{lead}\"{}\"", escaped(e)), ops));
    }
    steps.push((
        "]}".into(),
        vec![add("/jsExpressionsComplete", json!(true))],
    ));

    let mut started = false;
    for (args, ops) in steps {
        ctx.emit(EventKind::ToolCallArgs {
            tool_call_id: call.clone(),
            delta: args,
        })
        .await?;
        if !started {
            started = true;
            let content = json!({"initialHeight": INITIAL_HEIGHT, "generating": true});
            ctx.emit(snapshot(&id, OGUI_ACTIVITY, content, None))
                .await?;
        }
        // One operation an event, as the middleware sends them.
        for op in ops {
            ctx.emit(delta(&id, OGUI_ACTIVITY, op)).await?;
        }
        pause(ctx).await?;
    }
    ctx.emit(delta(&id, OGUI_ACTIVITY, add("/generating", json!(false))))
        .await?;
    ctx.emit(EventKind::ToolCallEnd {
        tool_call_id: call.clone(),
    })
    .await?;
    // `generateSandboxedUi` is a frontend tool whose handler answers "UI generated"; the demo
    // answers its own call so the thread has no call left open.
    let message_id = ctx.new_id("tool");
    ctx.emit(EventKind::ToolCallResult {
        message_id,
        tool_call_id: call,
        content: Content::Text("UI generated".into()),
        role: None,
    })
    .await?;
    stream_text(ctx, "Done: the card's counter animates inside a sandboxed frame, which then tells the page its height.").await?;
    Ok(RunEnd::success())
}

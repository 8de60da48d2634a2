//! Tool scenarios: a backend tool the server really runs (`backend_tool`) and a tool call the
//! app renders as UI (`tool_ui`); plus the tool-call emitters the other scenario files share.

use serde_json::{json, Value};

use crate::protocol::event::EventKind;
use crate::protocol::types::Content;
use crate::server::agents::{AgentError, RunContext, RunEnd};

use super::calc::{self, Request};
use super::text::{last_user_text, stream_text};

/// Cut `s` into pieces of at most `n` chars, on char boundaries (a model streams JSON so).
pub(super) fn pieces(s: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (count, (i, _)) in s.char_indices().enumerate() {
        if count > 0 && count % n.max(1) == 0 {
            out.push(&s[start..i]);
            start = i;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// A pause between the steps of a scenario, long enough for a UI to show the progress.
pub(super) async fn pause(ctx: &RunContext) -> Result<(), AgentError> {
    ctx.sleep(ctx.settings.token_delay * 8).await
}

/// Emit a whole tool call: START (under `parent`), the arguments in pieces of `piece` chars
/// with the token pause between them, END.
pub(super) async fn emit_tool_call(
    ctx: &mut RunContext,
    id: &str,
    name: &str,
    parent: Option<&str>,
    args: &Value,
    piece: usize,
) -> Result<(), AgentError> {
    ctx.emit(EventKind::ToolCallStart {
        tool_call_id: id.into(),
        tool_call_name: name.into(),
        parent_message_id: parent.map(str::to_string),
    })
    .await?;
    for delta in pieces(&args.to_string(), piece) {
        ctx.emit(EventKind::ToolCallArgs {
            tool_call_id: id.into(),
            delta: delta.into(),
        })
        .await?;
        ctx.sleep(ctx.settings.token_delay).await?;
    }
    ctx.emit(EventKind::ToolCallEnd {
        tool_call_id: id.into(),
    })
    .await
}

/// Emit a tool message answering `tool_call_id` with `content` as JSON text; returns its id.
pub(super) async fn emit_tool_result(
    ctx: &mut RunContext,
    tool_call_id: &str,
    content: &Value,
) -> Result<String, AgentError> {
    let message_id = ctx.new_id("tool");
    ctx.emit(EventKind::ToolCallResult {
        message_id: message_id.clone(),
        tool_call_id: tool_call_id.into(),
        content: Content::Text(content.to_string()),
        role: None,
    })
    .await?;
    Ok(message_id)
}

/// `text` without its first word when that word is `word` (the scenario's name).
pub(super) fn after_word<'a>(text: &'a str, word: &str) -> &'a str {
    let trimmed = text.trim_start();
    let first = trimmed.split_whitespace().next().unwrap_or("");
    if first
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '_')
        .eq_ignore_ascii_case(word)
    {
        trimmed[first.len()..].trim()
    } else {
        text.trim()
    }
}

pub async fn backend_tool(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let text = last_user_text(ctx).unwrap_or_default();
    let request = calc::parse_request(after_word(&text, "backend_tool"));
    let (name, args, intro) = match &request {
        Request::Calculate(e) => (
            "calculate",
            json!({"expression": e}),
            "Let me calculate that.",
        ),
        Request::Convert { value, from, to } => (
            "convert_units",
            json!({"value": calc::num(*value), "from": from, "to": to}),
            "Let me convert that.",
        ),
    };
    let intro = stream_text(ctx, intro).await?;
    let call = ctx.new_id("call");
    emit_tool_call(ctx, &call, name, Some(&intro), &args, 8).await?;
    ctx.sleep(ctx.settings.token_delay).await?;
    // A failing tool is an answer, not a failed run: the error goes back as the tool's result.
    let (result, answer) = match &request {
        Request::Calculate(e) => match calc::evaluate(e) {
            Ok(v) => {
                let v = calc::round4(v);
                (
                    json!({"expression": e, "result": calc::num(v)}),
                    format!("{e} = {}.", calc::fmt_num(v)),
                )
            }
            Err(err) => (
                json!({"expression": e, "error": err}),
                format!("I could not calculate `{e}`: {err}."),
            ),
        },
        Request::Convert { value, from, to } => match calc::convert(*value, from, to) {
            Ok(v) => {
                let v = calc::round4(v);
                let shown = calc::fmt_num(*value);
                (
                    json!({"value": calc::num(*value), "from": from, "to": to, "result": calc::num(v)}),
                    format!("{shown} {from} = {} {to}.", calc::fmt_num(v)),
                )
            }
            Err(err) => (
                json!({"value": calc::num(*value), "from": from, "to": to, "error": err}),
                format!(
                    "I could not convert that: {err}. I know km, mi, m, ft, kg, lb, c, f and k."
                ),
            ),
        },
    };
    emit_tool_result(ctx, &call, &result).await?;
    stream_text(ctx, &answer).await?;
    Ok(RunEnd::success())
}

/// Haikus for `tool_ui`: (japanese, english, gradient).
const HAIKUS: [([&str; 3], [&str; 3], &str); 3] = [
    (
        ["古池や", "蛙飛び込む", "水の音"],
        [
            "An old silent pond",
            "a frog jumps into the pond",
            "splash! Silence again.",
        ],
        "linear-gradient(135deg, #1e3c72 0%, #2a5298 100%)",
    ),
    (
        ["桜散る", "風に舞う花", "春の夢"],
        [
            "Cherry petals fall",
            "flowers dancing on the wind",
            "a dream of springtime",
        ],
        "linear-gradient(135deg, #ffafbd 0%, #ffc3a0 100%)",
    ),
    (
        ["静けさや", "岩にしみ入る", "蝉の声"],
        [
            "Such stillness here",
            "seeping into the rocks",
            "the cicada's voice",
        ],
        "linear-gradient(135deg, #134e5e 0%, #71b280 100%)",
    ),
];

pub async fn tool_ui(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let text = last_user_text(ctx).unwrap_or_default();
    // Deterministic, but not always the same poem: the message picks it.
    let (japanese, english, gradient) = HAIKUS[text.len() % HAIKUS.len()];
    let intro = stream_text(
        ctx,
        "Here is a haiku; your app draws it from the tool call's arguments.",
    )
    .await?;
    let call = ctx.new_id("call");
    let args = json!({"japanese": japanese, "english": english, "gradient": gradient});
    emit_tool_call(ctx, &call, "generate_haiku", Some(&intro), &args, 16).await?;
    emit_tool_result(ctx, &call, &json!({"rendered": true})).await?;
    stream_text(ctx, "I hope it brings you a quiet moment.").await?;
    Ok(RunEnd::success())
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::testing::{
        assert_clean, assistant_text, call_and_result, run_scenario, types, user,
    };
    use super::pieces;

    async fn backend(text: &str) -> (Value, Option<Value>, String) {
        let (events, p) = run_scenario("backend_tool", |i| i.messages = vec![user(text)]).await;
        assert_clean(text, &events, &p);
        assert!(
            types(&events)
                .iter()
                .filter(|t| **t == "TOOL_CALL_ARGS")
                .count()
                > 1
        );
        let (call, args, result) = call_and_result(&p);
        let name = call.function.name.clone();
        (
            json!({"name": name, "args": args}),
            result,
            assistant_text(&p),
        )
    }

    #[tokio::test]
    async fn backend_tool_calculates() {
        let (call, result, text) = backend("backend_tool 12 * 7").await;
        assert_eq!(
            call,
            json!({"name": "calculate", "args": {"expression": "12 * 7"}})
        );
        assert_eq!(result, Some(json!({"expression": "12 * 7", "result": 84})));
        assert!(text.starts_with("Let me calculate that."), "{text}");
        assert!(text.ends_with("12 * 7 = 84."), "{text}");

        let (_, result, text) = backend("backend_tool (3+4)/2").await;
        assert_eq!(
            result,
            Some(json!({"expression": "(3+4)/2", "result": 3.5}))
        );
        assert!(text.contains("(3+4)/2 = 3.5."), "{text}");

        let (call, _, _) = backend("backend_tool").await;
        assert_eq!(call["args"], json!({"expression": "12 * 7"}));
    }

    #[tokio::test]
    async fn backend_tool_converts_units() {
        let (call, result, text) = backend("backend_tool 10 km to mi").await;
        let args = json!({"value": 10, "from": "km", "to": "mi"});
        assert_eq!(call, json!({"name": "convert_units", "args": args}));
        let expected = json!({"value": 10, "from": "km", "to": "mi", "result": 6.2137});
        assert_eq!(result, Some(expected));
        assert!(text.contains("10 km = 6.2137 mi."), "{text}");

        let (_, result, _) = backend("backend_tool 100 f to c").await;
        assert_eq!(result.unwrap()["result"], 37.7778);
        let (_, result, text) = backend("backend_tool 5 kg to km").await;
        assert_eq!(result.unwrap()["error"], "cannot convert kg to km");
        assert!(text.contains("could not convert"), "{text}");
    }

    #[tokio::test]
    async fn backend_tool_errors_are_tool_results_not_run_errors() {
        let (_, result, text) = backend("backend_tool 1 / 0").await;
        assert_eq!(
            result,
            Some(json!({"expression": "1 / 0", "error": "division by zero"}))
        );
        assert!(text.contains("division by zero"), "{text}");
        let (_, result, _) = backend("backend_tool 3 + * 4").await;
        assert!(result.unwrap()["error"]
            .as_str()
            .unwrap()
            .contains("unexpected"));
    }

    #[tokio::test]
    async fn tool_ui_streams_structured_arguments() {
        let (events, p) = run_scenario("tool_ui", |_| {}).await;
        assert_clean("tool_ui", &events, &p);
        let (call, args, result) = call_and_result(&p);
        assert_eq!(call.function.name, "generate_haiku");
        assert_eq!(args["japanese"].as_array().unwrap().len(), 3);
        assert_eq!(args["english"].as_array().unwrap().len(), 3);
        assert!(args["gradient"]
            .as_str()
            .unwrap()
            .starts_with("linear-gradient("));
        assert!(args.get("image_url").is_none());
        assert_eq!(result, Some(json!({"rendered": true})));
        assert!(
            types(&events)
                .iter()
                .filter(|t| **t == "TOOL_CALL_ARGS")
                .count()
                >= 4
        );
    }

    #[test]
    fn pieces_cover_the_text() {
        assert_eq!(pieces("abcdefg", 3), ["abc", "def", "g"]);
        assert_eq!(pieces("é😀xyz", 2), ["é😀", "xy", "z"]);
        assert!(pieces("", 4).is_empty());
    }
}

//! Text scenarios (`chat`, `long`, `error`) and the text streaming every scenario uses.

use crate::protocol::event::EventKind;
use crate::protocol::types::{Content, Message, TextRole};
use crate::server::agents::{AgentError, RunContext, RunEnd};

/// Stream `text` as one assistant message, chunked the way a model's tokens arrive (a word or
/// a piece of a long word at a time), pausing `token_delay` between chunks.
pub async fn stream_text(ctx: &mut RunContext, text: &str) -> Result<String, AgentError> {
    let id = ctx.new_id("msg");
    ctx.emit(EventKind::TextMessageStart {
        message_id: id.clone(),
        role: Some(TextRole::Assistant),
        name: None,
    })
    .await?;
    for token in tokens(text) {
        ctx.emit(EventKind::TextMessageContent {
            message_id: id.clone(),
            delta: token.to_string(),
        })
        .await?;
        ctx.sleep(ctx.settings.token_delay).await?;
    }
    ctx.emit(EventKind::TextMessageEnd {
        message_id: id.clone(),
    })
    .await?;
    Ok(id)
}

/// Split text into model-like tokens: a word with its following whitespace, long words cut
/// every 8 characters (on char boundaries).
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars_in_token = 0;
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        if !space && (in_space || chars_in_token >= 8) {
            out.push(&text[start..i]);
            start = i;
            chars_in_token = 0;
        }
        in_space = space;
        chars_in_token += 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

const CHAT_ANSWER: &str = "## Hello from agui-studio\n\nThis answer is **streamed** by the built-in demo agent, a token at a time, as AG-UI `TEXT_MESSAGE_CONTENT` events. No model and no network are involved.\n\nWhat you can try:\n\n- `backend_tool 12 * 7` runs a real tool on the server\n- `hitl` asks *your* app to run a frontend tool\n- `approval` waits for you to approve an action\n- `reasoning` shows a model thinking\n\nA code block:\n\n```rust\nfn main() {\n    println!(\"hello, AG-UI\");\n}\n```\n\n| event | purpose |\n|---|---|\n| `RUN_STARTED` | opens the run |\n| `TEXT_MESSAGE_CONTENT` | streams text |\n| `RUN_FINISHED` | closes it |\n\nSee [the AG-UI docs](https://docs.ag-ui.com) for the protocol.";

pub async fn chat(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    stream_text(ctx, CHAT_ANSWER).await?;
    Ok(RunEnd::success())
}

/// `long N`: N deltas of one message (a benchmark load).
pub async fn long(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let n = last_user_text(ctx)
        .and_then(|t| t.split_whitespace().find_map(|w| w.parse::<usize>().ok()))
        .unwrap_or(1000)
        .min(10_000_000);
    let id = ctx.new_id("msg");
    ctx.emit(EventKind::TextMessageStart {
        message_id: id.clone(),
        role: Some(TextRole::Assistant),
        name: None,
    })
    .await?;
    let delay = ctx.settings.token_delay;
    let started = tokio::time::Instant::now();
    for i in 0..n {
        // Not `format!`: its machinery was a twentieth of the server's instructions per event
        // of this benchmark load.
        let mut delta = i.to_string();
        delta.push(' ');
        ctx.emit(EventKind::TextMessageContent {
            message_id: id.clone(),
            delta,
        })
        .await?;
        // Paced at ten deltas per token delay, so a browser can watch it (and stop it), on a
        // fixed schedule: a late wake-up is made up by the next ones, so the rate holds on
        // average. With a zero delay (benchmarks) it runs flat out.
        if i % 10 == 9 && !delay.is_zero() {
            let due = started + delay * (i / 10 + 1) as u32;
            ctx.sleep(due.saturating_duration_since(tokio::time::Instant::now()))
                .await?;
        }
    }
    ctx.emit(EventKind::TextMessageEnd { message_id: id })
        .await?;
    Ok(RunEnd::success())
}

pub async fn error(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let id = ctx.new_id("msg");
    ctx.emit(EventKind::TextMessageStart {
        message_id: id.clone(),
        role: Some(TextRole::Assistant),
        name: None,
    })
    .await?;
    for t in tokens("Working on it… connecting to the upstream service") {
        ctx.emit(EventKind::TextMessageContent {
            message_id: id.clone(),
            delta: t.to_string(),
        })
        .await?;
        ctx.sleep(ctx.settings.token_delay).await?;
    }
    ctx.emit(EventKind::TextMessageEnd { message_id: id })
        .await?;
    Err(AgentError::failed(
        crate::wire::RunErrorCode::UpstreamUnavailable,
        "the demo's pretend upstream service is unavailable (this error is the scenario)",
    ))
}

/// The text of the last user message, if any.
pub fn last_user_text(ctx: &RunContext) -> Option<String> {
    ctx.input.messages.iter().rev().find_map(|m| match m {
        Message::User(u) => Some(match &u.content {
            Content::Text(t) => t.clone(),
            c => c.text(),
        }),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::tokens;

    #[test]
    fn tokens_cover_the_text_exactly() {
        for text in [
            "",
            "a",
            "hello world",
            "  lead",
            "supercalifragilistic é😀 x\n\ny",
        ] {
            assert_eq!(tokens(text).concat(), text);
        }
        assert_eq!(tokens("hello world"), ["hello ", "world"]);
    }
}

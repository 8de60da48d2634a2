//! The `multimodal` scenario: describes the content parts of the user's last message (kind,
//! source, MIME type, size) without decoding any of them.

use crate::protocol::types::{Content, ContentPart, Message, PartSource};
use crate::server::agents::{AgentError, RunContext, RunEnd};

use super::text::stream_text;

/// Bytes encoded by base64 text, from its length alone (a `data:` URL prefix is skipped).
pub(super) fn base64_size(text: &str) -> usize {
    let body = match text.find(";base64,") {
        Some(i) if text.starts_with("data:") => &text[i + ";base64,".len()..],
        _ => text,
    };
    let len = body.chars().filter(|c| !c.is_whitespace()).count();
    let padding = body
        .trim_end()
        .chars()
        .rev()
        .take_while(|&c| c == '=')
        .count()
        .min(2);
    (len * 3 / 4).saturating_sub(padding)
}

fn human_size(n: usize) -> String {
    match n {
        n if n < 1024 => format!("{n} bytes"),
        n if n < 1024 * 1024 => format!("{n} bytes ({:.1} KB)", n as f64 / 1024.0),
        n => format!("{n} bytes ({:.1} MB)", n as f64 / (1024.0 * 1024.0)),
    }
}

/// At most `n` characters, on one line, safe inside a markdown table cell.
fn cell(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().count() > n {
        out.push('…');
    }
    out.replace(['\n', '\r'], " ").replace('|', "\\|")
}

/// The markdown table describing `parts`: kind, source, MIME type, size and a glimpse.
pub(super) fn describe_parts(parts: &[ContentPart]) -> String {
    let mut out = String::from(
        "| # | kind | source | MIME type | size | details |\n|---|---|---|---|---|---|\n",
    );
    for (i, part) in parts.iter().enumerate() {
        let (kind, media) = match part {
            ContentPart::Text(t) => {
                let n = t.text.chars().count();
                out.push_str(&format!(
                    "| {} | text | inline | text/plain | {n} chars | {} |\n",
                    i + 1,
                    cell(&t.text, 40)
                ));
                continue;
            }
            ContentPart::Image(m) => ("image", m),
            ContentPart::Audio(m) => ("audio", m),
            ContentPart::Video(m) => ("video", m),
            ContentPart::Document(m) => ("document", m),
        };
        let (source, mime, size, details) = match &media.source {
            PartSource::Data { value, mime_type } => (
                "data",
                Some(mime_type),
                human_size(base64_size(value)),
                "base64 inline".to_string(),
            ),
            PartSource::Url { value, mime_type } => {
                ("url", mime_type.as_ref(), "—".into(), cell(value, 40))
            }
            PartSource::File {
                value,
                provider,
                mime_type,
            } => {
                let by = provider
                    .as_deref()
                    .map(|p| format!(" ({p})"))
                    .unwrap_or_default();
                (
                    "file",
                    mime_type.as_ref(),
                    "—".into(),
                    format!("{}{by}", cell(value, 40)),
                )
            }
        };
        let mime = mime.map_or("—".to_string(), |m| cell(m, 60));
        out.push_str(&format!(
            "| {} | {kind} | {source} | {mime} | {size} | {details} |\n",
            i + 1
        ));
    }
    out
}

pub async fn multimodal(ctx: &mut RunContext) -> Result<RunEnd, AgentError> {
    let content = ctx.input.messages.iter().rev().find_map(|m| match m {
        Message::User(u) => Some(u.content.clone()),
        _ => None,
    });
    let text = match content {
        Some(Content::Parts(parts)) if !parts.is_empty() => format!(
            "Your message has {} part{}:\n\n{}",
            parts.len(),
            if parts.len() == 1 { "" } else { "s" },
            describe_parts(&parts)
        ),
        _ => "Your message is plain text, so there is nothing to describe. Attach an image, audio, video or document to your message and send `multimodal` again: I will list each part's kind, source (inline data, URL or provider file), MIME type and size.".into(),
    };
    stream_text(ctx, &text).await?;
    Ok(RunEnd::success())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testing::{assert_clean, assistant_text, run_scenario};
    use super::base64_size;
    use crate::protocol::types::{Content, ContentPart, Message};

    #[test]
    fn base64_sizes_come_from_the_text_length() {
        assert_eq!(base64_size(""), 0);
        assert_eq!(base64_size("Zg=="), 1);
        assert_eq!(base64_size("Zm8="), 2);
        assert_eq!(base64_size("Zm9v"), 3);
        assert_eq!(base64_size("Zm9vYg"), 4); // unpadded
        assert_eq!(base64_size("Zm9v\nYmFy\n"), 6);
        assert_eq!(base64_size("data:text/plain;base64,Zm9vYmFy"), 6);
    }

    #[tokio::test]
    async fn multimodal_describes_every_part() {
        let parts: Vec<ContentPart> = serde_json::from_value(json!([
            {"type": "text", "text": "multimodal: what is in these | files? This sentence is long."},
            {"type": "image", "source": {"type": "data", "value": "iVBORw0KGgo=", "mimeType": "image/png"}},
            {"type": "audio", "source": {"type": "url", "value": "https://example.com/a.mp3", "mimeType": "audio/mpeg"}},
            {"type": "video", "source": {"type": "file", "value": "file-123", "provider": "openai"}},
            {"type": "document", "source": {"type": "data", "value": "JVBERi0xLjQK", "mimeType": "application/pdf"}}
        ]))
        .unwrap();
        let (events, p) = run_scenario("multimodal", |i| {
            if let Some(Message::User(u)) = i.messages.first_mut() {
                u.content = Content::Parts(parts);
            }
        })
        .await;
        assert_clean("multimodal", &events, &p);
        let text = assistant_text(&p);
        assert!(text.starts_with("Your message has 5 parts:"), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| ")).collect();
        assert_eq!(rows.len(), 6, "{text}");
        assert!(rows[1].contains("| text |") && rows[1].contains("what is in these \\| files?"));
        assert!(
            !rows[1].contains("long."),
            "text is cut at 40 chars: {}",
            rows[1]
        );
        assert!(
            rows[2].contains("| image | data | image/png | 8 bytes |"),
            "{}",
            rows[2]
        );
        assert!(rows[3].contains("| audio | url | audio/mpeg | — | https://example.com/a.mp3 |"));
        assert!(
            rows[4].contains("| video | file | — | — | file-123 (openai) |"),
            "{}",
            rows[4]
        );
        assert!(rows[5].contains("| document | data | application/pdf | 9 bytes |"));
    }

    #[tokio::test]
    async fn multimodal_explains_how_to_attach_files() {
        let (events, p) = run_scenario("multimodal", |_| {}).await;
        assert_clean("multimodal", &events, &p);
        assert!(assistant_text(&p).contains("Attach an image"));
    }
}

//! The encoder: AG-UI events (and comments, retry hints) framed as SSE, line breaks in any value
//! kept from ending a frame or injecting a field.

use super::line_end;

/// The comment the server sends on idle streams so proxies do not time the connection out.
pub const KEEP_ALIVE: &str = ": keep-alive\n\n";

/// Frames one JSON payload as an SSE message: `data: <json>\n\n`.
///
/// Compact `serde_json` output never contains line breaks, but if `json` does, every line gets
/// its own `data:` line so a break can never end the frame early or smuggle in another field;
/// the decoder joins them back with `\n`.
pub fn encode_data(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 8);
    push_data_lines(&mut out, json);
    out.push('\n');
    out
}

/// Frames one JSON payload with an optional `event:` name and `id:`.
///
/// Line breaks in `event` and `id` are dropped (and NUL in `id`, which would make clients ignore
/// the id): they are single-line fields, and a break would let the value inject fields or end
/// the frame.
pub fn encode_event(json: &str, id: Option<&str>, event: Option<&str>) -> String {
    let mut out = String::with_capacity(json.len() + 24);
    if let Some(event) = event {
        push_single_line_field(&mut out, "event", event, false);
    }
    if let Some(id) = id {
        push_single_line_field(&mut out, "id", id, true);
    }
    push_data_lines(&mut out, json);
    out.push('\n');
    out
}

/// Appends `id: {id}` and `data: {json}` to `out`, as [`encode_event`] frames them with a
/// numeric id, without a string of its own (a server's streams write every event so).
pub fn push_numbered_event(out: &mut Vec<u8>, json: &str, id: u64) {
    out.extend_from_slice(b"id: ");
    out.extend_from_slice(itoa::Buffer::new().format(id).as_bytes());
    out.push(b'\n');
    for_each_line(json, |line| {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    });
    out.push(b'\n');
}

/// Frames a comment, e.g. a keep-alive; clients ignore it. Multi-line text stays a comment on
/// every line.
pub fn encode_comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    for_each_line(text, |line| {
        out.push_str(": ");
        out.push_str(line);
        out.push('\n');
    });
    out.push('\n');
    out
}

/// Frames a `retry:` hint: the reconnection delay, in milliseconds, clients should use.
pub fn encode_retry(ms: u64) -> String {
    format!("retry: {ms}\n\n")
}

fn push_data_lines(out: &mut String, text: &str) {
    for_each_line(text, |line| {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    });
}

fn push_single_line_field(out: &mut String, name: &str, value: &str, drop_nul: bool) {
    out.push_str(name);
    out.push_str(": ");
    out.extend(
        value
            .chars()
            .filter(|&c| c != '\n' && c != '\r' && !(drop_nul && c == '\0')),
    );
    out.push('\n');
}

/// Splits on LF, CRLF and lone CR — exactly the line ends the decoder recognises — so whatever
/// the encoder emits as one line is read back as one line. Always yields at least one line.
fn for_each_line(text: &str, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(off) = line_end(&bytes[start..]) {
        let end = start + off;
        f(&text[start..end]);
        start = if bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n') {
            end + 2
        } else {
            end + 1
        };
    }
    f(&text[start..]);
}

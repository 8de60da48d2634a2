//! Server-Sent Events codec: the encoder the server uses to frame AG-UI events and the
//! incremental, bounded decoder (WHATWG EventSource parsing rules) the client and the verifier
//! use to read them back from arbitrarily split byte chunks.
//!
//! Pure and allocation-conscious: no I/O, so the same code runs natively and in the browser.

use std::borrow::Cow;
use std::fmt;

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
    while let Some(off) = find_line_end(&bytes[start..]) {
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

/// Position of the first CR or LF.
///
/// Streams are mostly long lines of JSON, so the scan works a word at a time: for every byte
/// `b`, `b ^ pattern` is zero exactly where `b` matches, and the classic "has a zero byte" trick
/// finds that without a per-byte branch. Scanning is the decoder's hot loop.
#[inline]
fn find_line_end(haystack: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const LF: u64 = LO * b'\n' as u64;
    const CR: u64 = LO * b'\r' as u64;
    #[inline(always)]
    fn has_zero(v: u64) -> bool {
        v.wrapping_sub(LO) & !v & HI != 0
    }

    let mut i = 0;
    while i + 8 <= haystack.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&haystack[i..i + 8]);
        let v = u64::from_ne_bytes(word);
        if has_zero(v ^ LF) || has_zero(v ^ CR) {
            break;
        }
        i += 8;
    }
    haystack[i..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map(|p| i + p)
}

/// One dispatched SSE message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseFrame {
    /// The `event:` name; `None` when the frame set none (or set it empty), which EventSource
    /// reports as `"message"`.
    pub event: Option<String>,
    /// The `data:` lines joined by `\n`.
    pub data: String,
    /// The last event id in effect when the frame was dispatched (ids persist across frames);
    /// `None` if no id was ever set or the last `id:` was empty.
    pub id: Option<String>,
    /// The `retry:` value, only if this frame carried one.
    pub retry: Option<u64>,
}

/// Why the decoder gave up. After an error the decoder refuses further input and keeps
/// returning the same error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// A line grew past the limit without a line end.
    LineTooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The `data:` lines of one frame added up to more than the limit.
    DataTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseError::LineTooLong { limit } => {
                write!(
                    f,
                    "SSE line exceeds the {limit}-byte limit without a line end"
                )
            }
            SseError::DataTooLarge { limit } => write!(
                f,
                "SSE frame data exceeds the {limit}-byte limit before its terminating blank line"
            ),
        }
    }
}

impl std::error::Error for SseError {}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Incremental SSE decoder following the WHATWG EventSource parsing rules.
///
/// Feed it chunks as they arrive with [`Decoder::push`]; chunk boundaries may fall anywhere
/// (inside a UTF-8 character, between CR and LF), and the frames come out the same as if the
/// whole stream had been pushed at once. Memory is bounded by the line limit: one partial line
/// plus one frame's data.
#[derive(Debug, Clone)]
pub struct Decoder {
    /// Bytes of the current line, kept only when a line straddles chunks.
    line: Vec<u8>,
    /// A CR ended the previous chunk; an LF starting the next one belongs to it.
    after_cr: bool,
    /// How many bytes of a leading BOM have been seen; `None` once the stream start is past.
    bom_seen: Option<usize>,
    max_line: usize,
    frame: FrameState,
    failed: Option<SseError>,
    ended_mid_frame: bool,
}

/// Per-frame buffers, separate from the line buffer so a buffered line can be parsed while
/// they are updated.
#[derive(Debug, Clone, Default)]
struct FrameState {
    data: String,
    event: String,
    /// The last event id buffer: what `id:` sets, attached to every later frame.
    id: String,
    /// The last event id string: committed at each blank line, what a reconnect should send.
    committed_id: String,
    retry: Option<u64>,
    reconnection_time: Option<u64>,
    /// A field line arrived since the last blank line.
    dirty: bool,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// Default bound on one line and on one frame's data: generous for any real AG-UI event
    /// (state snapshots included) while still stopping a runaway stream.
    pub const DEFAULT_MAX_LINE: usize = 10 * 1024 * 1024;

    /// A decoder with the [default limit](Self::DEFAULT_MAX_LINE).
    pub fn new() -> Self {
        Self::with_limit(Self::DEFAULT_MAX_LINE)
    }

    /// A decoder that fails once a line, or one frame's accumulated data, exceeds
    /// `max_line_bytes`.
    pub fn with_limit(max_line_bytes: usize) -> Self {
        Decoder {
            line: Vec::new(),
            after_cr: false,
            bom_seen: Some(0),
            max_line: max_line_bytes,
            frame: FrameState::default(),
            failed: None,
            ended_mid_frame: false,
        }
    }

    /// Feeds the next chunk and returns every frame it completed, in order.
    ///
    /// On error, frames completed earlier in the same chunk are discarded along with the
    /// stream: a stream that broke the limits is not trusted any further.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseFrame>, SseError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let mut out = Vec::new();
        let result = self.push_into(bytes, &mut out);
        match result {
            Ok(()) => Ok(out),
            Err(err) => {
                self.fail(err.clone());
                Err(err)
            }
        }
    }

    /// Ends the stream and returns the frames it completes.
    ///
    /// WHATWG discards an unterminated final frame, but a common producer bug is a last event
    /// without its trailing blank line (or even without its final line end). This decoder is
    /// lenient at end of stream: an unterminated final line is parsed as a line, and then the
    /// stream end acts as a blank line, so a pending frame with data is dispatched. Deciding
    /// whether the stream was truncated is the verifier's job, not the decoder's; it can ask
    /// [`Decoder::ended_mid_frame`]. Afterwards the decoder is empty (the last event id is
    /// kept) and further pushes start a new frame.
    pub fn finish(&mut self) -> Result<Vec<SseFrame>, SseError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        // A partial BOM that never completed was ordinary (if malformed) text.
        if let Some(seen) = self.bom_seen.take() {
            self.line.extend_from_slice(&BOM[..seen]);
        }
        self.after_cr = false;
        let mut out = Vec::new();
        let had_line = !self.line.is_empty();
        if had_line {
            let line = std::mem::take(&mut self.line);
            let result = self.frame.line(&line, self.max_line, &mut out);
            self.line = line;
            self.line.clear();
            if let Err(err) = result {
                self.fail(err.clone());
                return Err(err);
            }
        }
        self.ended_mid_frame = had_line || self.frame.dirty;
        self.frame.dispatch(&mut out);
        Ok(out)
    }

    /// The last event id string, as a reconnect would send it in `Last-Event-ID`: updated when
    /// a frame ends (even one without data), `None` if never set or set to empty.
    pub fn last_event_id(&self) -> Option<&str> {
        Some(self.frame.committed_id.as_str()).filter(|id| !id.is_empty())
    }

    /// The most recent valid `retry:` value, whether or not its frame was dispatched.
    pub fn reconnection_time(&self) -> Option<u64> {
        self.frame.reconnection_time
    }

    /// Bytes held back because their line has not ended yet.
    pub fn pending_bytes(&self) -> usize {
        self.line.len() + self.bom_seen.unwrap_or(0)
    }

    /// After [`Decoder::finish`]: whether the stream stopped inside a frame (an unterminated
    /// line, or field lines without the closing blank line).
    pub fn ended_mid_frame(&self) -> bool {
        self.ended_mid_frame
    }

    fn fail(&mut self, err: SseError) {
        self.failed = Some(err);
        // Release the memory: the decoder will not read on.
        self.line = Vec::new();
        self.frame.data = String::new();
    }

    fn push_into(&mut self, mut input: &[u8], out: &mut Vec<SseFrame>) -> Result<(), SseError> {
        if let Some(seen) = self.bom_seen {
            let mut matched = seen;
            let mut used = 0;
            while matched < BOM.len() && used < input.len() && input[used] == BOM[matched] {
                matched += 1;
                used += 1;
            }
            if matched == BOM.len() {
                self.bom_seen = None;
                input = &input[used..];
            } else if used == input.len() {
                // Still a possible BOM; wait for the byte that decides.
                self.bom_seen = Some(matched);
                return Ok(());
            } else {
                // Not a BOM after all: the bytes held back so far are ordinary input.
                self.bom_seen = None;
                self.feed(&BOM[..matched], out)?;
                input = &input[used..];
            }
        }
        self.feed(input, out)
    }

    fn feed(&mut self, mut input: &[u8], out: &mut Vec<SseFrame>) -> Result<(), SseError> {
        if self.after_cr && !input.is_empty() {
            self.after_cr = false;
            if input[0] == b'\n' {
                input = &input[1..];
            }
        }
        while let Some(pos) = find_line_end(input) {
            if self.line.len() + pos > self.max_line {
                return Err(SseError::LineTooLong {
                    limit: self.max_line,
                });
            }
            if self.line.is_empty() {
                self.frame.line(&input[..pos], self.max_line, out)?;
            } else {
                self.line.extend_from_slice(&input[..pos]);
                // Taken out and put back so the allocation is reused for the next split line.
                let line = std::mem::take(&mut self.line);
                let result = self.frame.line(&line, self.max_line, out);
                self.line = line;
                self.line.clear();
                result?;
            }
            let ended_by_cr = input[pos] == b'\r';
            input = &input[pos + 1..];
            if ended_by_cr {
                match input.first() {
                    None => self.after_cr = true,
                    Some(b'\n') => input = &input[1..],
                    Some(_) => {}
                }
            }
        }
        if self.line.len() + input.len() > self.max_line {
            return Err(SseError::LineTooLong {
                limit: self.max_line,
            });
        }
        self.line.extend_from_slice(input);
        Ok(())
    }
}

/// Decodes field text lossily, as EventSource does; borrows when the bytes are valid UTF-8.
/// Splitting a line at ASCII `:` or space never cuts a UTF-8 sequence, so decoding the parts
/// separately gives the same text as decoding the whole line.
fn text(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

impl FrameState {
    fn line(&mut self, line: &[u8], limit: usize, out: &mut Vec<SseFrame>) -> Result<(), SseError> {
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return Ok(()),
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        self.dirty = true;
        match name {
            b"data" => {
                let value = text(value);
                if self.data.len() + value.len() + 1 > limit {
                    return Err(SseError::DataTooLarge { limit });
                }
                self.data.push_str(&value);
                self.data.push('\n');
            }
            b"event" => {
                self.event.clear();
                self.event.push_str(&text(value));
            }
            // An id with NUL is ignored: it could not be sent back in a Last-Event-ID header.
            b"id" if !value.contains(&0) => {
                self.id.clear();
                self.id.push_str(&text(value));
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Digits only, so this is ASCII; a value too large for u64 is no usable delay
                // and is ignored like any other invalid one.
                let ms = std::str::from_utf8(value).ok().and_then(|s| s.parse().ok());
                if let Some(ms) = ms {
                    self.retry = Some(ms);
                    self.reconnection_time = Some(ms);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseFrame>) {
        if self.committed_id != self.id {
            self.committed_id.clone_from(&self.id);
        }
        self.dirty = false;
        let retry = self.retry.take();
        if self.data.is_empty() {
            self.event.clear();
            return;
        }
        // Copy out rather than take, so the buffers keep their capacity for the next frame.
        let data = self.data[..self.data.len() - 1].to_owned();
        self.data.clear();
        let event = (!self.event.is_empty()).then(|| self.event.clone());
        self.event.clear();
        let id = (!self.id.is_empty()).then(|| self.id.clone());
        out.push(SseFrame {
            event,
            data,
            id,
            retry,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frame(data: &str) -> SseFrame {
        SseFrame {
            data: data.to_owned(),
            ..SseFrame::default()
        }
    }

    fn decode_all(bytes: &[u8]) -> Vec<SseFrame> {
        let mut dec = Decoder::new();
        let mut frames = dec.push(bytes).unwrap();
        frames.extend(dec.finish().unwrap());
        frames
    }

    fn decode_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<SseFrame> {
        let mut dec = Decoder::new();
        let mut frames = Vec::new();
        for chunk in chunks {
            frames.extend(dec.push(chunk).unwrap());
        }
        frames.extend(dec.finish().unwrap());
        frames
    }

    /// Decodes with every possible single cut and with one byte per push; all must agree with
    /// the unsplit decode, which is returned.
    fn decode_every_split(bytes: &[u8]) -> Vec<SseFrame> {
        let whole = decode_all(bytes);
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(decode_chunks([a, b]), whole, "cut at {cut}");
        }
        assert_eq!(decode_chunks(bytes.chunks(1)), whole, "byte by byte");
        whole
    }

    #[test]
    fn encoders_frame_as_documented() {
        assert_eq!(encode_data(r#"{"a":1}"#), "data: {\"a\":1}\n\n");
        assert_eq!(
            encode_data("a\nb\r\nc\rd"),
            "data: a\ndata: b\ndata: c\ndata: d\n\n"
        );
        assert_eq!(encode_data(""), "data: \n\n");
        assert_eq!(
            encode_event("{}", Some("7"), Some("RUN_STARTED")),
            "event: RUN_STARTED\nid: 7\ndata: {}\n\n"
        );
        assert_eq!(encode_event("{}", None, None), "data: {}\n\n");
        assert_eq!(
            encode_event("{}", Some("1\n\0x"), Some("a\r\nb")),
            "event: ab\nid: 1x\ndata: {}\n\n"
        );
        assert_eq!(encode_comment("keep-alive"), KEEP_ALIVE);
        assert_eq!(encode_comment("a\nb"), ": a\n: b\n\n");
        assert_eq!(encode_retry(1500), "retry: 1500\n\n");
    }

    #[test]
    fn line_end_styles() {
        for stream in [
            "data: a\n\ndata: b\n\n",
            "data: a\r\n\r\ndata: b\r\n\r\n",
            "data: a\r\rdata: b\r\r",
            "data: a\r\n\ndata: b\r\r\n",
        ] {
            assert_eq!(
                decode_every_split(stream.as_bytes()),
                vec![frame("a"), frame("b")],
                "{stream:?}"
            );
        }
    }

    #[test]
    fn cr_at_chunk_end_then_lf_is_one_line_end() {
        let mut dec = Decoder::new();
        assert_eq!(dec.push(b"data: a\r").unwrap(), vec![]);
        // Had the LF counted as a second line end, this would already dispatch.
        assert_eq!(dec.push(b"\n").unwrap(), vec![]);
        assert_eq!(dec.push(b"data: b\r").unwrap(), vec![]);
        assert_eq!(dec.push(b"").unwrap(), vec![]);
        assert_eq!(dec.push(b"\n\r").unwrap(), vec![frame("a\nb")]);
        assert_eq!(dec.pending_bytes(), 0);
        // A lone CR followed by something else still ended the line.
        let mut dec = Decoder::new();
        assert_eq!(dec.push(b"data: a\r").unwrap(), vec![]);
        assert_eq!(dec.push(b"\r").unwrap(), vec![frame("a")]);
    }

    #[test]
    fn multi_line_data_is_joined_by_lf() {
        assert_eq!(
            decode_every_split(b"data: one\ndata: two\ndata:\ndata: three\n\n"),
            vec![frame("one\ntwo\n\nthree")]
        );
    }

    #[test]
    fn comments_are_ignored() {
        assert_eq!(
            decode_every_split(b": hello\ndata: a\n: inside\ndata: b\n\n:\n\n: keep-alive\n\n"),
            vec![frame("a\nb")]
        );
    }

    #[test]
    fn event_id_and_retry_fields() {
        let frames = decode_every_split(b"event: RUN_STARTED\nid: 42\nretry: 3000\ndata: x\n\n");
        assert_eq!(
            frames,
            vec![SseFrame {
                event: Some("RUN_STARTED".into()),
                data: "x".into(),
                id: Some("42".into()),
                retry: Some(3000),
            }]
        );
    }

    #[test]
    fn invalid_retry_is_ignored() {
        for bad in [
            "retry: 12a",
            "retry: -1",
            "retry: ",
            "retry",
            "retry:  5",
            "retry: 1.5",
        ] {
            let stream = format!("{bad}\ndata: x\n\n");
            let mut dec = Decoder::new();
            let frames = dec.push(stream.as_bytes()).unwrap();
            assert_eq!(frames, vec![frame("x")], "{bad:?}");
            assert_eq!(dec.reconnection_time(), None, "{bad:?}");
        }
        assert_eq!(
            decode_all(b"retry: 99999999999999999999999\ndata: x\n\n")[0].retry,
            None
        );
    }

    #[test]
    fn retry_belongs_to_its_frame_only() {
        let mut dec = Decoder::new();
        let frames = dec.push(b"retry: 10\ndata: a\n\ndata: b\n\n").unwrap();
        assert_eq!(frames[0].retry, Some(10));
        assert_eq!(frames[1].retry, None);
        assert_eq!(dec.reconnection_time(), Some(10));
        // A retry-only block (what encode_retry sends) dispatches nothing but still counts.
        let mut dec = Decoder::new();
        assert_eq!(dec.push(encode_retry(250).as_bytes()).unwrap(), vec![]);
        assert_eq!(dec.reconnection_time(), Some(250));
        assert_eq!(dec.push(b"data: a\n\n").unwrap(), vec![frame("a")]);
    }

    #[test]
    fn field_without_colon_has_empty_value() {
        let frames = decode_every_split(b"data\ndata\n\nevent: e\nevent\ndata: x\n\n");
        assert_eq!(frames, vec![frame("\n"), frame("x")]);
        // `data` alone still makes the frame non-empty.
        assert_eq!(decode_all(b"data\n\n"), vec![frame("")]);
    }

    #[test]
    fn only_one_space_is_stripped() {
        assert_eq!(
            decode_every_split(b"data:  two\ndata:none\ndata:\tx\ndata: \n\n"),
            vec![frame(" two\nnone\n\tx\n")]
        );
        assert_eq!(
            decode_all(b"event:  e\ndata: x\n\n")[0].event.as_deref(),
            Some(" e")
        );
    }

    #[test]
    fn unknown_fields_and_odd_names_are_ignored() {
        assert_eq!(
            decode_every_split(b"foo: bar\nData: no\n data: no\ndata : no\ndata: yes\n\n"),
            vec![frame("yes")]
        );
    }

    #[test]
    fn leading_bom_is_skipped_once() {
        let mut stream = BOM.to_vec();
        stream.extend_from_slice(b"data: a\n\n");
        assert_eq!(decode_every_split(&stream), vec![frame("a")]);
        // Only at the very start: later it is part of the text.
        let mut stream = b"data: a\n\n".to_vec();
        stream.extend_from_slice(&BOM);
        stream.extend_from_slice(b"data: b\n\n");
        // BOM+`data` is an unknown field name, so the second frame has no data.
        assert_eq!(decode_every_split(&stream), vec![frame("a")]);
        // Two BOMs: the second is not skipped, so the field name is not `data`.
        let mut stream = [BOM, BOM].concat();
        stream.extend_from_slice(b"data: a\n\n");
        assert_eq!(decode_every_split(&stream), vec![]);
    }

    #[test]
    fn partial_bom_is_ordinary_text() {
        // EF BB then `d`: not a BOM, the two bytes are invalid UTF-8 in the field name.
        assert_eq!(
            decode_every_split(b"\xEF\xBBdata: a\n\ndata: b\n\n"),
            vec![frame("b")]
        );
        let mut dec = Decoder::new();
        assert_eq!(dec.push(b"\xEF").unwrap(), vec![]);
        assert_eq!(dec.pending_bytes(), 1);
        assert_eq!(dec.finish().unwrap(), vec![]);
        assert!(dec.ended_mid_frame());
        assert_eq!(decode_all(b"data: \xEF\xBB\n\n"), vec![frame("\u{FFFD}")]);
    }

    #[test]
    fn utf8_split_across_pushes() {
        for text in ["é", "😀", "a€b", "日本語😀é"] {
            let stream = format!("event: {text}\nid: {text}\ndata: {text}\n\n");
            let frames = decode_every_split(stream.as_bytes());
            assert_eq!(
                frames,
                vec![SseFrame {
                    event: Some(text.into()),
                    data: text.into(),
                    id: Some(text.into()),
                    retry: None,
                }]
            );
        }
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(
            decode_every_split(b"data: a\xFFb\xC3\n\n"),
            vec![frame("a\u{FFFD}b\u{FFFD}")]
        );
    }

    #[test]
    fn blank_lines_alone_yield_nothing() {
        assert_eq!(decode_every_split(b"\n\n\r\n\r\r\n\n"), vec![]);
        assert_eq!(decode_every_split(b""), vec![]);
        assert_eq!(decode_every_split(b"event: e\nid: 1\n\n"), vec![]);
    }

    #[test]
    fn id_persists_and_updates_last_event_id() {
        let mut dec = Decoder::new();
        let frames = dec
            .push(b"id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\nid\ndata: d\n\n")
            .unwrap();
        let ids: Vec<_> = frames.iter().map(|f| f.id.as_deref()).collect();
        assert_eq!(ids, [Some("1"), Some("1"), Some("2"), None]);
        assert_eq!(dec.last_event_id(), None);
        // An id alone updates the last event id, but only once its block ends.
        assert_eq!(dec.push(b"id: 9\n").unwrap(), vec![]);
        assert_eq!(dec.last_event_id(), None);
        assert_eq!(dec.push(b"\n").unwrap(), vec![]);
        assert_eq!(dec.last_event_id(), Some("9"));
        // An id containing NUL is ignored.
        assert_eq!(
            dec.push(b"id: 1\x002\ndata: e\n\n").unwrap()[0]
                .id
                .as_deref(),
            Some("9")
        );
        assert_eq!(dec.last_event_id(), Some("9"));
    }

    #[test]
    fn event_name_resets_after_each_frame() {
        let frames = decode_every_split(b"event: a\ndata: 1\n\ndata: 2\n\nevent: b\n\ndata: 3\n\n");
        let events: Vec<_> = frames.iter().map(|f| f.event.as_deref()).collect();
        assert_eq!(events, [Some("a"), None, None]);
        assert_eq!(decode_all(b"event:\ndata: x\n\n")[0].event, None);
    }

    #[test]
    fn endless_line_hits_the_limit() {
        let mut dec = Decoder::with_limit(16);
        assert_eq!(dec.push(b"data: 0123456789").unwrap(), vec![]);
        let err = dec.push(b"abc").unwrap_err();
        assert_eq!(err, SseError::LineTooLong { limit: 16 });
        assert_eq!(
            err.to_string(),
            "SSE line exceeds the 16-byte limit without a line end"
        );
        assert!(dec.pending_bytes() <= 16);
        // The decoder refuses to go on.
        assert_eq!(dec.push(b"\n\n"), Err(err.clone()));
        assert_eq!(dec.finish(), Err(err));
        // A line exactly at the limit is fine, one more byte is not, however it is split.
        let mut dec = Decoder::with_limit(7);
        assert_eq!(dec.push(b"data: a\n\n").unwrap(), vec![frame("a")]);
        assert!(Decoder::with_limit(7).push(b"data: ab\n\n").is_err());
        let mut dec = Decoder::with_limit(7);
        dec.push(b"data:").unwrap();
        assert!(dec.push(b" ab\n").is_err());
        assert_eq!(
            SseError::LineTooLong {
                limit: Decoder::DEFAULT_MAX_LINE
            }
            .to_string(),
            "SSE line exceeds the 10485760-byte limit without a line end"
        );
    }

    #[test]
    fn endless_stream_without_line_end_stays_bounded() {
        let mut dec = Decoder::with_limit(1 << 16);
        let chunk = [b'x'; 1000];
        let mut failed = false;
        for _ in 0..1000 {
            match dec.push(&chunk) {
                Ok(frames) => assert!(frames.is_empty()),
                Err(SseError::LineTooLong { .. }) => {
                    failed = true;
                    break;
                }
                Err(other) => panic!("{other}"),
            }
            assert!(dec.pending_bytes() <= 1 << 16);
        }
        assert!(failed);
    }

    #[test]
    fn huge_data_hits_the_limit() {
        let mut dec = Decoder::with_limit(100);
        let line = format!("data: {}\n", "y".repeat(40));
        dec.push(line.as_bytes()).unwrap();
        dec.push(line.as_bytes()).unwrap();
        let err = dec.push(line.as_bytes()).unwrap_err();
        assert_eq!(err, SseError::DataTooLarge { limit: 100 });
        assert!(err.to_string().contains("100-byte limit"), "{err}");
        assert_eq!(dec.push(b"\n"), Err(err));
        // The same data split over frames is fine.
        let mut dec = Decoder::with_limit(100);
        for _ in 0..10 {
            assert_eq!(dec.push(format!("{line}\n").as_bytes()).unwrap().len(), 1);
        }
    }

    #[test]
    fn finish_with_trailing_blank_line() {
        let mut dec = Decoder::new();
        assert_eq!(dec.push(b"data: a\n\n").unwrap(), vec![frame("a")]);
        assert_eq!(dec.finish().unwrap(), vec![]);
        assert!(!dec.ended_mid_frame());
    }

    #[test]
    fn finish_without_trailing_blank_line_is_lenient() {
        for stream in [&b"data: a\n"[..], b"data: a", b"data: a\r", b"data: a\r\n"] {
            let mut dec = Decoder::new();
            assert_eq!(dec.push(stream).unwrap(), vec![], "{stream:?}");
            assert_eq!(dec.finish().unwrap(), vec![frame("a")], "{stream:?}");
            assert!(dec.ended_mid_frame(), "{stream:?}");
            assert_eq!(dec.pending_bytes(), 0);
        }
        // Nothing with data pending: nothing to dispatch, but an unterminated line is reported.
        let mut dec = Decoder::new();
        dec.push(b"data: a\n\n: comm").unwrap();
        assert_eq!(dec.finish().unwrap(), vec![]);
        assert!(dec.ended_mid_frame());
        // The decoder can be reused after finish; the last event id is kept.
        let mut dec = Decoder::new();
        dec.push(b"id: 5\ndata: a").unwrap();
        assert_eq!(dec.finish().unwrap()[0].id.as_deref(), Some("5"));
        assert_eq!(
            dec.push(b"data: b\n\n").unwrap()[0].id.as_deref(),
            Some("5")
        );
    }

    #[test]
    fn encode_event_round_trips() {
        let json = r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"héllo 😀"}"#;
        let mut stream = String::new();
        stream.push_str(&encode_event(
            json,
            Some("evt-1"),
            Some("TEXT_MESSAGE_CONTENT"),
        ));
        stream.push_str(KEEP_ALIVE);
        stream.push_str(&encode_data(json));
        stream.push_str(&encode_event("multi\nline", None, Some("x")));
        let frames = decode_every_split(stream.as_bytes());
        assert_eq!(
            frames,
            vec![
                SseFrame {
                    event: Some("TEXT_MESSAGE_CONTENT".into()),
                    data: json.into(),
                    id: Some("evt-1".into()),
                    retry: None,
                },
                SseFrame {
                    id: Some("evt-1".into()),
                    ..frame(json)
                },
                SseFrame {
                    event: Some("x".into()),
                    id: Some("evt-1".into()),
                    ..frame("multi\nline")
                },
            ]
        );
    }

    #[test]
    fn many_small_events_decode_quickly() {
        // Correctness of the bulk path; the timing is measured in release builds.
        let one = encode_event(
            r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"hi"}"#,
            None,
            None,
        );
        let stream = one.repeat(10_000);
        let mut dec = Decoder::new();
        let mut count = 0;
        for chunk in stream.as_bytes().chunks(4096) {
            count += dec.push(chunk).unwrap().len();
        }
        count += dec.finish().unwrap().len();
        assert_eq!(count, 10_000);
    }

    // ---- property tests ----

    #[derive(Debug, Clone)]
    struct GenFrame {
        event: Option<&'static str>,
        data: String,
        /// `Some("")` resets the last event id.
        id: Option<String>,
        retry: Option<u64>,
        /// 0 = LF, 1 = CRLF, 2 = CR.
        line_end: u8,
        comment_inside: Option<String>,
        comment_after: Option<String>,
    }

    fn data_char() -> impl Strategy<Value = char> {
        prop_oneof![
            4 => prop::sample::select(vec!['a', 'z', ' ', ':', '{', '"', '\n', '\r', 'é', '😀', '\u{FEFF}']),
            1 => any::<char>(),
        ]
    }

    fn gen_text(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(data_char(), 0..max).prop_map(|c| c.into_iter().collect())
    }

    fn gen_frame() -> impl Strategy<Value = GenFrame> {
        (
            prop::option::of(prop::sample::select(vec![
                "RUN_STARTED",
                "message",
                "x-y",
                "é",
            ])),
            gen_text(24),
            prop::option::of(prop_oneof![
                Just(String::new()),
                "[a-z0-9-]{1,6}",
                Just("😀1".to_owned())
            ]),
            prop::option::of(0u64..100_000),
            0u8..3,
            prop::option::of(gen_text(8)),
            prop::option::of(gen_text(8)),
        )
            .prop_map(
                |(event, data, id, retry, line_end, comment_inside, comment_after)| GenFrame {
                    event,
                    data,
                    id,
                    retry,
                    line_end,
                    comment_inside,
                    comment_after,
                },
            )
    }

    fn with_line_end(lf_text: &str, style: u8) -> String {
        match style {
            0 => lf_text.to_owned(),
            1 => lf_text.replace('\n', "\r\n"),
            _ => lf_text.replace('\n', "\r"),
        }
    }

    /// The stream plus the frames a conforming decoder must produce from it.
    fn build(frames: &[GenFrame], bom: bool, drop_final_blank: bool) -> (Vec<u8>, Vec<SseFrame>) {
        let mut stream = String::new();
        if bom {
            stream.push('\u{FEFF}');
        }
        let mut expected = Vec::new();
        let mut last_id: Option<String> = None;
        for (i, f) in frames.iter().enumerate() {
            let mut block = String::new();
            if let Some(c) = &f.comment_inside {
                // Just the comment lines, without encode_comment's blank line.
                let c = encode_comment(c);
                block.push_str(&c[..c.len() - 1]);
            }
            if let Some(ms) = f.retry {
                block.push_str(&format!("retry: {ms}\n"));
            }
            block.push_str(&encode_event(&f.data, f.id.as_deref(), f.event));
            let last = i + 1 == frames.len();
            if last && drop_final_blank && f.comment_after.is_none() {
                block.pop();
            }
            if let Some(c) = &f.comment_after {
                block.push_str(&encode_comment(c));
            }
            stream.push_str(&with_line_end(&block, f.line_end));

            if let Some(id) = &f.id {
                last_id = Some(id.clone()).filter(|id| !id.is_empty());
            }
            expected.push(SseFrame {
                event: f.event.map(str::to_owned),
                data: f.data.replace("\r\n", "\n").replace('\r', "\n"),
                id: last_id.clone(),
                retry: f.retry,
            });
        }
        (stream.into_bytes(), expected)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn split_anywhere_decodes_the_same(
            frames in prop::collection::vec(gen_frame(), 0..12),
            bom in any::<bool>(),
            drop_final_blank in any::<bool>(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
            bytewise in prop::bool::weighted(0.1),
        ) {
            let (stream, expected) = build(&frames, bom, drop_final_blank);
            let whole = decode_all(&stream);
            prop_assert_eq!(&whole, &expected);

            let mut points: Vec<usize> = cuts.iter().map(|c| c.index(stream.len() + 1)).collect();
            points.sort_unstable();
            let mut pieces = Vec::new();
            let mut start = 0;
            for p in points {
                pieces.push(&stream[start..p]);
                start = p;
            }
            pieces.push(&stream[start..]);
            prop_assert_eq!(&decode_chunks(pieces), &expected);
            if bytewise {
                prop_assert_eq!(&decode_chunks(stream.chunks(1)), &expected);
            }
        }

        #[test]
        fn arbitrary_bytes_split_anywhere_decode_the_same(
            bytes in prop::collection::vec(
                prop_oneof![
                    3 => prop::sample::select(b"data: \r\n:idevent\xEF\xBB\xBF\xC3\xA9".to_vec()),
                    1 => any::<u8>(),
                ],
                0..200,
            ),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..16),
        ) {
            let whole = decode_all(&bytes);
            let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
            points.sort_unstable();
            let mut pieces = Vec::new();
            let mut start = 0;
            for p in points {
                pieces.push(&bytes[start..p]);
                start = p;
            }
            pieces.push(&bytes[start..]);
            prop_assert_eq!(&decode_chunks(pieces), &whole);
            prop_assert_eq!(&decode_chunks(bytes.chunks(1)), &whole);
        }
    }
}

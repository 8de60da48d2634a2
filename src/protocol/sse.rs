//! Server-Sent Events codec: the encoder the server uses to frame AG-UI events and the
//! incremental, bounded decoder (WHATWG EventSource parsing rules) the client and the verifier
//! use to read them back from arbitrarily split byte chunks.
//!
//! Pure and allocation-conscious: no I/O, so the same code runs natively and in the browser.

use std::borrow::Cow;
use std::fmt;

mod encode;
pub use encode::{
    encode_comment, encode_data, encode_event, encode_retry, push_numbered_event, KEEP_ALIVE,
};

use super::bytes::{line_end, position};

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
        while let Some(pos) = line_end(input) {
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
/// Valid text (nearly every line) is checked by `from_utf8`, which skips ASCII a word at a time;
/// `from_utf8_lossy` walks its bytes one by one, so it only replaces what is invalid.
fn text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

impl FrameState {
    fn line(&mut self, line: &[u8], limit: usize, out: &mut Vec<SseFrame>) -> Result<(), SseError> {
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        let (name, value) = match position(line, b':') {
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
            b"id" if position(value, 0).is_none() => {
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
mod tests;

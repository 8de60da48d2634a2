//! Framing of the binding: a 4-byte big-endian length, then that many bytes of protobuf.
//!
//! [`FrameDecoder`] takes the body as it arrives (split anywhere) and yields whole payloads. A
//! length past its limit fails as soon as the 4 bytes are read, before anything is buffered
//! for it, so a hostile length (0xFFFFFFFF) costs nothing; what is buffered is at most one
//! frame plus one network read.

use prost::Message as _;

use super::pb;

/// The default bound on one frame's payload: the same bound one SSE line has
/// ([`crate::protocol::sse::Decoder::DEFAULT_MAX_LINE`]), so one event may be as large over
/// either transport.
pub const DEFAULT_MAX_FRAME: usize = crate::protocol::sse::Decoder::DEFAULT_MAX_LINE;

/// Why a framed stream could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("a protobuf frame of {len} bytes is over the limit of {max} bytes")]
    TooLarge { len: u64, max: usize },
    #[error("the stream ended inside a protobuf frame ({0} bytes left over)")]
    Truncated(usize),
}

/// The frame of one envelope: its length, then its bytes.
pub fn encode_frame(event: &pb::Event) -> Vec<u8> {
    let len = event.encoded_len();
    let mut out = Vec::with_capacity(4 + len);
    // An event is far below 4 GiB: our events are bounded well before that.
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
    event
        .encode(&mut out)
        .expect("a Vec grows to whatever the message needs");
    out
}

/// Splits a framed byte stream into payloads.
#[derive(Debug)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    max_frame: usize,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameDecoder {
    pub fn new() -> Self {
        Self::with_limit(DEFAULT_MAX_FRAME)
    }

    pub fn with_limit(max_frame: usize) -> Self {
        FrameDecoder {
            buf: Vec::new(),
            max_frame,
        }
    }

    /// Feed bytes; the payloads completed by them, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, FrameError> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut at = 0;
        while self.buf.len() - at >= 4 {
            let header: [u8; 4] = self.buf[at..at + 4].try_into().expect("four bytes");
            let len = u32::from_be_bytes(header);
            if len as usize > self.max_frame {
                self.buf.clear();
                return Err(FrameError::TooLarge {
                    len: u64::from(len),
                    max: self.max_frame,
                });
            }
            let end = at + 4 + len as usize;
            if self.buf.len() < end {
                break;
            }
            out.push(self.buf[at + 4..end].to_vec());
            at = end;
        }
        self.buf.drain(..at);
        Ok(out)
    }

    /// The body ended: an error when it ended inside a frame.
    pub fn finish(&mut self) -> Result<(), FrameError> {
        match std::mem::take(&mut self.buf).len() {
            0 => Ok(()),
            n => Err(FrameError::Truncated(n)),
        }
    }

    /// Bytes held for a frame not yet complete.
    pub fn pending_bytes(&self) -> usize {
        self.buf.len()
    }
}

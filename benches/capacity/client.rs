//! A small HTTP/1.1 client over a raw tokio `TcpStream`, one connection per request
//! (`Connection: close`). It is cheap enough to hold ten thousand open streams in the benchmark's
//! own process and to drain a fast stream without becoming the bottleneck: bodies are de-chunked
//! and scanned byte by byte for SSE `data:` lines and a few markers, never parsed as JSON.

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Longest response head accepted (a bound on what a server can make the client buffer).
const MAX_HEAD: usize = 64 * 1024;
/// Bytes read from the socket at once.
const READ: usize = 64 * 1024;

/// An open response: status known, body still to read.
pub struct Response {
    stream: TcpStream,
    pub status: u16,
    /// Raw bytes read but not yet de-chunked, from `pos`.
    raw: Vec<u8>,
    pos: usize,
    /// `Transfer-Encoding: chunked` (else the body runs to the end of the connection).
    chunked: bool,
    state: Chunk,
    eof: bool,
}

#[derive(Debug, Clone, Copy)]
enum Chunk {
    Size,
    Data(usize),
    DataEnd,
    Done,
}

/// Connect, send `method path` with `body` (JSON) and read the response head.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
) -> io::Result<Response> {
    let stream = connect(addr).await?;
    send(stream, addr, method, path, body).await
}

/// A connection to `addr`, with Nagle's delay off.
pub async fn connect(addr: SocketAddr) -> io::Result<TcpStream> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// Send `method path` with `body` (JSON) on an open connection and read the response head.
pub async fn send(
    mut stream: TcpStream,
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
) -> io::Result<Response> {
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nConnection: close\r\n"
    );
    if method != "GET" {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body);
    stream.write_all(&bytes).await?;

    let mut raw = Vec::with_capacity(READ);
    let head_end = loop {
        if let Some(i) = find(&raw, b"\r\n\r\n") {
            break i + 4;
        }
        if raw.len() > MAX_HEAD {
            return Err(io::Error::other("response head too long"));
        }
        let mut buf = [0u8; 4096];
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Err(io::Error::other(
                "connection closed before the response head",
            ));
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other(format!("bad status line: {head:.80}")))?;
    let chunked = head
        .lines()
        .any(|l| l.starts_with("transfer-encoding:") && l.contains("chunked"));
    Ok(Response {
        stream,
        status,
        raw,
        pos: head_end,
        chunked,
        state: Chunk::Size,
        eof: false,
    })
}

impl Response {
    /// The next piece of the body (de-chunked: the data of one chunk, or of what a read brought
    /// of it), or None at its end. The piece is a range of the read buffer, not a copy.
    pub async fn next_body(&mut self) -> io::Result<Option<&[u8]>> {
        loop {
            if let Some((start, end)) = self.next_piece()? {
                return Ok(Some(&self.raw[start..end]));
            }
            if self.eof || matches!(self.state, Chunk::Done) {
                return Ok(None);
            }
            if self.pos > 0 {
                self.raw.drain(..self.pos);
                self.pos = 0;
            }
            // Into the buffer's spare room, which is never zeroed: zeroing 64 KB before every
            // read (and touching every page of ten thousand connections' buffers) was a quarter
            // of the client's CPU in the fan-out row, taken from the server it measures. What is
            // left before a read is at most a chunk's size line, so the buffer keeps its first
            // 64 KB: reserving a full READ beyond a few leftover bytes doubled every
            // connection's buffer to 128 KB — glibc's mmap threshold, and after the thousand
            // runs' buffers were freed, fresh heap pages — and half the client's time in the
            // fan-out went to the kernel zeroing pages for it.
            if self.raw.capacity() - self.raw.len() < READ / 2 {
                self.raw.reserve(READ);
            }
            let n = self.stream.read_buf(&mut self.raw).await?;
            if n == 0 {
                self.eof = true;
            }
        }
    }

    /// The range of the raw buffer holding the body's next bytes, if it has any yet.
    fn next_piece(&mut self) -> io::Result<Option<(usize, usize)>> {
        if !self.chunked {
            let (start, end) = (self.pos, self.raw.len());
            self.pos = end;
            return Ok((end > start).then_some((start, end)));
        }
        loop {
            let avail = &self.raw[self.pos..];
            match self.state {
                Chunk::Done => return Ok(None),
                Chunk::Size => {
                    let Some(end) = find(avail, b"\r\n") else {
                        if avail.len() > 1024 {
                            return Err(io::Error::other("chunk size line too long"));
                        }
                        return Ok(None);
                    };
                    let line = std::str::from_utf8(&avail[..end]).unwrap_or("");
                    let hex = line.split(';').next().unwrap_or("").trim();
                    let size = usize::from_str_radix(hex, 16)
                        .map_err(|_| io::Error::other(format!("bad chunk size {line:?}")))?;
                    self.pos += end + 2;
                    self.state = if size == 0 {
                        Chunk::Done
                    } else {
                        Chunk::Data(size)
                    };
                }
                Chunk::Data(left) => {
                    if avail.is_empty() {
                        return Ok(None);
                    }
                    let take = left.min(avail.len());
                    let start = self.pos;
                    self.pos += take;
                    self.state = if take == left {
                        Chunk::DataEnd
                    } else {
                        Chunk::Data(left - take)
                    };
                    return Ok(Some((start, start + take)));
                }
                Chunk::DataEnd => {
                    if avail.len() < 2 {
                        return Ok(None);
                    }
                    self.pos += 2;
                    self.state = Chunk::Size;
                }
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Counts SSE events (lines starting `data:`) and watches for markers in a body fed in pieces of
/// any size, a line at a time: a marker starting with `:` matches a comment line beginning with
/// it (`: connected`), any other marker an event whose `type` it is (`RUN_FINISHED`). Only the
/// start of a line is looked at (both servers write `{"type":"…"` first), so the scan costs
/// little more than finding the newlines.
pub struct Scan {
    pub events: u64,
    markers: Vec<(&'static [u8], u64)>,
    /// The start of a line cut by the end of a piece (at most [`LINE_HEAD`] bytes of it).
    partial: Vec<u8>,
}

/// The first `byte` in `hay`: glibc's vectorised memchr (a plain loop made the client, not the
/// server, the bottleneck of the fan-out row).
fn memchr(byte: u8, hay: &[u8]) -> Option<usize> {
    // SAFETY: memchr reads at most `hay.len()` bytes from `hay`'s start, and the pointer it
    // returns (if any) lies inside `hay`.
    let p = unsafe { libc::memchr(hay.as_ptr().cast(), i32::from(byte), hay.len()) };
    (!p.is_null()).then(|| p as usize - hay.as_ptr() as usize)
}

/// How much of a line the scan keeps (the prefixes it compares are far shorter).
const LINE_HEAD: usize = 4096;

impl Scan {
    pub fn new(markers: &[&'static [u8]]) -> Scan {
        Scan {
            events: 0,
            markers: markers.iter().map(|m| (*m, 0)).collect(),
            partial: Vec::new(),
        }
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(nl) = memchr(b'\n', rest) {
            if self.partial.is_empty() {
                self.line(&rest[..nl]);
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&rest[..nl.min(LINE_HEAD)]);
                self.line(&line);
                line.clear();
                self.partial = line;
            }
            rest = &rest[nl + 1..];
        }
        let room = LINE_HEAD.saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&rest[..rest.len().min(room)]);
    }

    fn line(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(data) = line.strip_prefix(b"data:") {
            self.events += 1;
            let data = data.strip_prefix(b" ").unwrap_or(data);
            const TYPE: &[u8] = b"\"type\":\"";
            let ty = match data.strip_prefix(b"{") {
                Some(d) if d.starts_with(TYPE) => &d[TYPE.len()..],
                _ => match data.windows(TYPE.len()).position(|w| w == TYPE) {
                    Some(i) => &data[i + TYPE.len()..],
                    None => return,
                },
            };
            for (m, count) in &mut self.markers {
                if m[0] != b':' && ty.starts_with(m) && ty.get(m.len()) == Some(&b'"') {
                    *count += 1;
                }
            }
        } else if line.starts_with(b":") {
            for (m, count) in &mut self.markers {
                if m[0] == b':' && line.starts_with(m) {
                    *count += 1;
                }
            }
        }
    }

    /// How often marker `i` (in the order given to [`Scan::new`]) was seen.
    pub fn seen(&self, i: usize) -> u64 {
        self.markers[i].1
    }
}

/// One drained stream.
#[derive(Debug, Clone)]
pub struct Drained {
    /// From before the connect (or the request's write, [`drain_on`]) to the first `data:`
    /// line.
    pub first_event: Duration,
    /// From the same moment to the end of the body.
    pub total: Duration,
    pub events: u64,
    /// The stream carried `RUN_FINISHED` (a run that completed).
    pub finished: bool,
}

/// POST `body` to `path` and read the whole SSE body.
pub async fn drain(addr: SocketAddr, path: &str, body: &[u8]) -> io::Result<Drained> {
    let start = Instant::now();
    let resp = request(addr, "POST", path, body).await?;
    read_run(resp, path, start).await
}

/// POST `body` to `path` on a connection opened before and read the whole SSE body: the times
/// count from the request's write, not from the connect.
pub async fn drain_on(
    stream: TcpStream,
    addr: SocketAddr,
    path: &str,
    body: &[u8],
) -> io::Result<Drained> {
    let start = Instant::now();
    let resp = send(stream, addr, "POST", path, body).await?;
    read_run(resp, path, start).await
}

/// Read a run's response to its end; the times count from `start`.
async fn read_run(mut resp: Response, path: &str, start: Instant) -> io::Result<Drained> {
    if resp.status != 200 {
        return Err(io::Error::other(format!("{path}: HTTP {}", resp.status)));
    }
    let mut scan = Scan::new(&[b"RUN_FINISHED"]);
    let mut first_event = None;
    while let Some(piece) = resp.next_body().await? {
        scan.feed(piece);
        if first_event.is_none() && scan.events > 0 {
            first_event = Some(start.elapsed());
        }
    }
    Ok(Drained {
        first_event: first_event.unwrap_or_else(|| start.elapsed()),
        total: start.elapsed(),
        events: scan.events,
        finished: scan.seen(0) > 0,
    })
}

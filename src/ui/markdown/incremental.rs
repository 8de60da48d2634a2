//! Incremental markdown for streamed text: complete top-level blocks are parsed once and keep
//! their DOM nodes; only the last (open) block is parsed again as the text grows, and it renders
//! into an element that stays in place while its children are keyed, so a growing paragraph,
//! code block, list or table only touches its tail.
//!
//! Why the open block needs more than a key: a long answer is often one huge paragraph (or code
//! block). Re-creating its element every animation frame made the browser shape and lay out the
//! whole text again each frame; with the element kept and the text cut into fixed chunks, only
//! the last chunk's text node changes.
//!
//! Why a huge open paragraph is also cut into block sections: the browser lays out a paragraph's
//! lines as one unit, so appending to a 100 KB paragraph re-broke all of its lines every frame
//! (25–28 ms of layout per frame at 110 KB in Chromium, the larger part of every long task while
//! `long 20000` streamed). Past [`SECTION_CHUNKS`] chunks, the paragraph's chunks are grouped
//! into `display: block` sections that end at a space, so only the last section is laid out
//! again. The cost: a line may end a little early where a section ends, once per ~8 KB.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::parse::{parse_tracked, Block, Inline, LastTop};

/// Bytes of text per text node in the open block (then up to the next whitespace, see
/// [`chunks`]). Chunk boundaries depend only on the text before them, so they do not move as
/// text is appended.
pub(crate) const CHUNK: usize = 1024;

/// How far past [`CHUNK`] a chunk may run to end after a whitespace character.
const CHUNK_SLACK: usize = 256;

/// Chunks per block section of a huge open paragraph; one section or less stays unsectioned.
pub(crate) const SECTION_CHUNKS: usize = 8;

pub(crate) fn hash_of<T: Hash + ?Sized>(t: &T) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

/// Whether `text` may define a link reference (`[label]: url`, possibly inside a quote or a
/// list item). A definition can give meaning to links anywhere in the document, also before
/// it, so such documents are parsed whole every time. Conservative: a false positive only costs
/// speed.
pub(crate) fn may_define_references(text: &str) -> bool {
    text.contains("]:")
        && text.lines().any(|line| {
            let rest = line.trim_start_matches(|c: char| {
                c.is_whitespace()
                    || c.is_ascii_digit()
                    || matches!(c, '>' | '-' | '*' | '+' | '.' | ')')
            });
            rest.starts_with('[') && rest.contains("]:")
        })
}

/// The parse of a text that grows at its end.
#[derive(Default)]
pub(crate) struct Incremental {
    /// The source of `done`: a prefix of the text that ends at the start of a line.
    src: String,
    /// The closed top-level blocks and their hashes.
    done: Vec<(u64, Arc<Block>)>,
    /// The blocks of the rest of the text (normally one, the open block).
    open: Vec<Block>,
}

/// A row of the rendered document.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Row {
    /// A block that no longer changes (rendered once).
    Done(usize, u64, Arc<Block>),
    /// The open block at this position, of this shape (see [`shape_of`]).
    Live(usize, u64),
}

/// The key of a row in the rendered list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RowKey {
    Done(usize, u64),
    Live(usize, u64),
}

impl Row {
    pub fn key(&self) -> RowKey {
        match self {
            Row::Done(i, h, _) => RowKey::Done(*i, *h),
            Row::Live(i, s) => RowKey::Live(*i, *s),
        }
    }
}

impl Incremental {
    /// Brings the parse up to date with `text`. Appended text re-parses only the open block and
    /// what was appended; any other change starts over.
    pub fn update(&mut self, text: &str) {
        if !text.starts_with(self.src.as_str()) || may_define_references(text) {
            self.src.clear();
            self.done.clear();
        }
        let tail = &text[self.src.len()..];
        let (mut blocks, last) = parse_tracked(tail);
        if let Some(LastTop { cut, index }) = last {
            // Only commit what is settled: the last element's first line is complete (`*` is a
            // list item, `*-` continues the paragraph above it) and a blank line separates it
            // from what precedes (a line can still become a table's header when a delimiter
            // row follows it).
            let first_line_complete = tail[cut..].contains('\n');
            if cut > 0
                && index > 0
                && index <= blocks.len()
                && first_line_complete
                && follows_blank_line(&tail[..cut])
            {
                let open = blocks.split_off(index);
                self.done
                    .extend(blocks.into_iter().map(|b| (hash_of(&b), Arc::new(b))));
                self.src.push_str(&tail[..cut]);
                blocks = open;
            }
        }
        self.open = blocks;
    }

    /// All blocks, closed and open (what [`super::parse`] returns for the whole text).
    #[cfg(test)]
    pub fn blocks(&self) -> Vec<Block> {
        let done = self.done.iter().map(|(_, b)| (**b).clone());
        done.chain(self.open.iter().cloned()).collect()
    }

    /// The rows to render: every block but the last is done; the last one is live.
    pub fn rows(&self) -> Vec<Row> {
        let mut rows: Vec<Row> = self
            .done
            .iter()
            .enumerate()
            .map(|(i, (h, b))| Row::Done(i, *h, b.clone()))
            .collect();
        let n = self.open.len();
        for (j, b) in self.open.iter().enumerate() {
            let i = self.done.len() + j;
            rows.push(if j + 1 == n {
                Row::Live(i, shape_of(b))
            } else {
                Row::Done(i, hash_of(b), Arc::new(b.clone()))
            });
        }
        rows
    }

    /// The open block (the last one), if any.
    pub fn live(&self) -> Option<Block> {
        self.open.last().cloned()
    }
}

/// Whether `before` (text ending with a newline) ends with a blank line.
fn follows_blank_line(before: &str) -> bool {
    let before = before.strip_suffix('\n').unwrap_or(before);
    let last_line = before.rsplit('\n').next().unwrap_or("");
    before.contains('\n') && last_line.trim().is_empty()
}

/// What decides the element of a block: while it stays the same, the live block's element is
/// kept and only its children change.
pub(crate) fn shape_of(block: &Block) -> u64 {
    match block {
        Block::Heading { level, .. } => hash_of(&("h", level)),
        Block::Paragraph(_) => hash_of("p"),
        Block::Plain(_) => hash_of("plain"),
        Block::CodeBlock { lang, .. } => hash_of(&("code", lang)),
        Block::List { start, .. } => hash_of(&("list", start)),
        Block::BlockQuote(_) => hash_of("quote"),
        Block::Table { alignments, .. } => hash_of(&("table", alignments)),
        Block::Rule => hash_of("hr"),
        Block::RawHtml(_) => hash_of("html"),
    }
}

/// Splits `text` into chunks of about [`CHUNK`] bytes that end after a whitespace character
/// (so a section boundary never splits a word), or at a character boundary [`CHUNK_SLACK`]
/// bytes further when there is none. Each boundary depends only on the text before it and the
/// few bytes after it, so it does not move once the text has grown past it.
pub(crate) fn chunks(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let mut end = (start + CHUNK).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let limit = (end + CHUNK_SLACK).min(text.len());
        match text.as_bytes()[end..limit]
            .iter()
            .position(u8::is_ascii_whitespace)
        {
            Some(at) => end += at + 1,
            None => {
                end = limit;
                while !text.is_char_boundary(end) {
                    end += 1;
                }
            }
        }
        let chunk = &text[start..end];
        start = end;
        Some(chunk)
    })
}

/// The inline content of the open block, as keyed pieces: each text cut into chunks, each
/// other inline whole. Key: (inline index, chunk index, hash).
pub(crate) fn pieces(inlines: &[Inline]) -> Vec<((usize, usize, u64), Inline)> {
    let mut out = Vec::new();
    for (i, inline) in inlines.iter().enumerate() {
        match inline {
            Inline::Text(t) => {
                for (j, c) in chunks(t).enumerate() {
                    out.push(((i, j, hash_of(c)), Inline::Text(c.to_owned())));
                }
            }
            other => out.push(((i, 0, hash_of(other)), other.clone())),
        }
    }
    out
}

/// A key and piece of the open block's inline content (see [`pieces`]).
pub(crate) type Piece = ((usize, usize, u64), Inline);

/// The pieces grouped into sections of [`SECTION_CHUNKS`] text chunks each (other inlines join
/// the section they fall in). A section's first piece never changes once the section exists, so
/// sections keep their elements as the text grows. One section when the content is small.
pub(crate) fn sections(pieces: Vec<Piece>) -> Vec<Vec<Piece>> {
    let mut out: Vec<Vec<Piece>> = vec![Vec::new()];
    let mut chunks_in_last = 0;
    for piece in pieces {
        if matches!(piece.1, Inline::Text(_)) {
            if chunks_in_last == SECTION_CHUNKS {
                out.push(Vec::new());
                chunks_in_last = 0;
            }
            chunks_in_last += 1;
        }
        out.last_mut().expect("never empty").push(piece);
    }
    out
}

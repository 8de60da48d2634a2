//! The owned markdown tree: blocks, list items, table alignments and inlines.

/// A block-level markdown node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Block {
    /// `#` … `######`: `level` is 1–6.
    Heading { level: u8, content: Vec<Inline> },
    /// A paragraph (`<p>`).
    Paragraph(Vec<Inline>),
    /// Inline content without a paragraph wrapper (the items of a tight list).
    Plain(Vec<Inline>),
    /// A fenced or indented code block; `lang` is the sanitised first word of the info string.
    CodeBlock { lang: Option<String>, code: String },
    /// `-`/`*`/`+` (`start == None`) or numbered (`start == Some(n)`) list.
    List {
        start: Option<u64>,
        items: Vec<ListItem>,
    },
    /// `>` block quote.
    BlockQuote(Vec<Block>),
    /// A GFM table: one alignment per column, the header cells and the body rows.
    Table {
        alignments: Vec<Align>,
        head: Vec<Vec<Inline>>,
        rows: Vec<Vec<Vec<Inline>>>,
    },
    /// `---`.
    Rule,
    /// An HTML block of the source, kept as literal text (never interpreted).
    RawHtml(String),
}

/// One item of a list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ListItem {
    /// `Some(checked)` for a task list item (`- [ ]` / `- [x]`).
    pub task: Option<bool>,
    pub blocks: Vec<Block>,
}

/// The alignment of a table column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Align {
    None,
    Left,
    Center,
    Right,
}

/// An inline (span-level) markdown node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Inline {
    /// Literal text (soft line breaks are kept as `'\n'`; raw inline HTML is text too).
    Text(String),
    /// `` `code` ``.
    Code(String),
    Emphasis(Vec<Inline>),
    Strong(Vec<Inline>),
    Strikethrough(Vec<Inline>),
    /// A link whose `href` passed [`sanitize_url`](super::sanitize_url). Links that did not are replaced by their
    /// content, so a `Link` in the tree is always safe to render as an anchor.
    Link {
        href: String,
        title: Option<String>,
        content: Vec<Inline>,
    },
    /// An image, never loaded: `href` is the sanitised URL if it is allowed, `url` the source
    /// URL (shown as text only).
    Image {
        alt: String,
        url: String,
        href: Option<String>,
    },
    /// A hard line break (`<br>`).
    HardBreak,
}

/// The plain text of inline content (used for image alt texts).
pub(in crate::ui::markdown) fn plain_text(inlines: &[Inline], out: &mut String) {
    for inline in inlines {
        match inline {
            Inline::Text(t) | Inline::Code(t) => out.push_str(t),
            Inline::Emphasis(c) | Inline::Strong(c) | Inline::Strikethrough(c) => {
                plain_text(c, out)
            }
            Inline::Link { content, .. } => plain_text(content, out),
            Inline::Image { alt, .. } => out.push_str(alt),
            Inline::HardBreak => out.push(' '),
        }
    }
}

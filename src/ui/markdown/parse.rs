//! Markdown text → an owned, bounded tree ([`Block`] / [`Inline`]), with every URL checked
//! (see the parent module for the security decisions).

use pulldown_cmark::{
    Alignment, CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag,
};

/// The `rel` attribute of every anchor rendered from markdown.
pub(super) const LINK_REL: &str = "noopener noreferrer nofollow";
/// At most this many characters of an image URL are shown (data URLs can be huge).
pub(super) const MAX_SHOWN_URL: usize = 120;
/// Elements nest at most about this deep (see the module notes): deeper ones render flat.
pub const MAX_NESTING: usize = 16;
/// At most this many characters of a code block's language are kept.
const MAX_LANG: usize = 32;

// ---------------------------------------------------------------------------------------------
// The tree
// ---------------------------------------------------------------------------------------------

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
    /// A link whose `href` passed [`sanitize_url`]. Links that did not are replaced by their
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

// ---------------------------------------------------------------------------------------------
// URL policy
// ---------------------------------------------------------------------------------------------

/// Returns the URL to use as an `href`, or `None` if the URL must not become a link.
///
/// Allowed: `http:`, `https:`, `mailto:` (scheme case-insensitive) and URLs without a scheme
/// (relative paths, `?query`, `#fragment`, `//host/path`). Leading/trailing whitespace and
/// control characters are stripped and tab/CR/LF removed anywhere (browsers ignore them, so
/// `java\tscript:` would otherwise slip through); any other control character rejects the URL.
pub fn sanitize_url(raw: &str) -> Option<String> {
    let trimmed = raw.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    if trimmed.is_empty() {
        return None;
    }
    let mut url = String::with_capacity(trimmed.len());
    for c in trimmed.chars() {
        match c {
            '\t' | '\n' | '\r' => {}
            c if c.is_control() => return None,
            c => url.push(c),
        }
    }
    // A scheme is whatever precedes a ':' that comes before any '/', '?' or '#'.
    match url.find([':', '/', '?', '#']) {
        Some(i) if url.as_bytes()[i] == b':' => {
            let scheme = &url[..i];
            let allowed = ["http", "https", "mailto"]
                .iter()
                .any(|s| scheme.eq_ignore_ascii_case(s));
            allowed.then_some(url)
        }
        _ => Some(url),
    }
}

/// Keeps the first word of a code block's info string, restricted to `[A-Za-z0-9_+#.-]`.
fn sanitize_lang(info: &str) -> Option<String> {
    let word = info.split_whitespace().next().unwrap_or("");
    let word = word.split(',').next().unwrap_or(""); // `rust,ignore`
    let lang: String = word
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '#' | '.' | '-'))
        .take(MAX_LANG)
        .collect();
    (!lang.is_empty()).then_some(lang)
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// The pulldown-cmark options used by the renderer.
pub fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// What an open element becomes when it ends.
enum Kind {
    Root,
    Paragraph,
    Heading(u8),
    BlockQuote,
    CodeBlock {
        lang: Option<String>,
        code: String,
    },
    HtmlBlock(String),
    List {
        start: Option<u64>,
        items: Vec<ListItem>,
    },
    Item {
        task: Option<bool>,
    },
    Table {
        alignments: Vec<Align>,
        head: Vec<Vec<Inline>>,
        rows: Vec<Vec<Vec<Inline>>>,
    },
    /// The header row or a body row: collects cells.
    Row {
        head: bool,
        cells: Vec<Vec<Inline>>,
    },
    Cell,
    Emphasis,
    Strong,
    Strikethrough,
    Link {
        href: Option<String>,
        title: Option<String>,
    },
    Image {
        url: String,
    },
    /// Containers that are not rendered specially (e.g. anything not enabled in [`options`]):
    /// their content is spliced into the parent.
    Transparent,
}

/// An open element while building the tree.
struct Frame {
    kind: Kind,
    blocks: Vec<Block>,
    inlines: Vec<Inline>,
}

impl Frame {
    fn new(kind: Kind) -> Self {
        Frame {
            kind,
            blocks: Vec::new(),
            inlines: Vec::new(),
        }
    }

    fn push_text(&mut self, text: &str) {
        match &mut self.kind {
            Kind::CodeBlock { code, .. } => code.push_str(text),
            Kind::HtmlBlock(html) => html.push_str(text),
            _ => {
                if let Some(Inline::Text(last)) = self.inlines.last_mut() {
                    last.push_str(text);
                } else {
                    self.inlines.push(Inline::Text(text.to_owned()));
                }
            }
        }
    }

    fn push_inline(&mut self, inline: Inline) {
        match inline {
            Inline::Text(text) => self.push_text(&text),
            inline => self.inlines.push(inline),
        }
    }

    fn push_block(&mut self, block: Block) {
        self.flush_inlines();
        self.blocks.push(block);
    }

    /// Loose inline content between blocks (tight list items) becomes a [`Block::Plain`].
    fn flush_inlines(&mut self) {
        if !self.inlines.is_empty() {
            let inlines = std::mem::take(&mut self.inlines);
            self.blocks.push(Block::Plain(inlines));
        }
    }
}

/// The blocks of a closed container; trailing loose inline content becomes a [`Block::Plain`].
fn finish(mut blocks: Vec<Block>, inlines: Vec<Inline>) -> Vec<Block> {
    if !inlines.is_empty() {
        blocks.push(Block::Plain(inlines));
    }
    blocks
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

fn align(a: &Alignment) -> Align {
    match a {
        Alignment::None => Align::None,
        Alignment::Left => Align::Left,
        Alignment::Center => Align::Center,
        Alignment::Right => Align::Right,
    }
}

/// The plain text of inline content (used for image alt texts).
pub(super) fn plain_text(inlines: &[Inline], out: &mut String) {
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

fn start_kind(tag: Tag<'_>) -> Kind {
    match tag {
        Tag::Paragraph => Kind::Paragraph,
        Tag::Heading { level, .. } => Kind::Heading(heading_level(level)),
        Tag::BlockQuote(_) => Kind::BlockQuote,
        Tag::CodeBlock(kind) => Kind::CodeBlock {
            lang: match kind {
                CodeBlockKind::Fenced(info) => sanitize_lang(&info),
                CodeBlockKind::Indented => None,
            },
            code: String::new(),
        },
        Tag::HtmlBlock => Kind::HtmlBlock(String::new()),
        Tag::List(start) => Kind::List {
            start,
            items: Vec::new(),
        },
        Tag::Item => Kind::Item { task: None },
        Tag::Table(alignments) => Kind::Table {
            alignments: alignments.iter().map(align).collect(),
            head: Vec::new(),
            rows: Vec::new(),
        },
        Tag::TableHead => Kind::Row {
            head: true,
            cells: Vec::new(),
        },
        Tag::TableRow => Kind::Row {
            head: false,
            cells: Vec::new(),
        },
        Tag::TableCell => Kind::Cell,
        Tag::Emphasis => Kind::Emphasis,
        Tag::Strong => Kind::Strong,
        Tag::Strikethrough => Kind::Strikethrough,
        Tag::Link {
            link_type,
            dest_url,
            title,
            ..
        } => {
            let href = if link_type == LinkType::Email {
                // `<john@example.org>`: the destination has no scheme.
                sanitize_url(&format!("mailto:{dest_url}"))
            } else {
                sanitize_url(&dest_url)
            };
            Kind::Link {
                href,
                title: (!title.is_empty()).then(|| title.into_string()),
            }
        }
        Tag::Image { dest_url, .. } => Kind::Image {
            url: dest_url.into_string(),
        },
        Tag::FootnoteDefinition(_)
        | Tag::DefinitionList
        | Tag::DefinitionListTitle
        | Tag::DefinitionListDefinition
        | Tag::Superscript
        | Tag::Subscript
        | Tag::MetadataBlock(_) => Kind::Transparent,
    }
}

/// Whether an element of this kind can contain another of its own or of another nesting kind.
/// The others (paragraphs, headings, code, table rows and cells, list items, images) only ever
/// sit one level inside a nesting element, so they are kept at any depth: splicing them would
/// lose what their parent expects of them (a list's items, a table's rows).
fn nests(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::BlockQuote
            | Kind::List { .. }
            | Kind::Table { .. }
            | Kind::Emphasis
            | Kind::Strong
            | Kind::Strikethrough
            | Kind::Link { .. }
    )
}

/// Closes `frame` and attaches what it built to `parent`.
fn close(frame: Frame, parent: &mut Frame) {
    match frame.kind {
        Kind::Root => parent.blocks.extend(finish(frame.blocks, frame.inlines)),
        Kind::Paragraph => parent.push_block(Block::Paragraph(frame.inlines)),
        Kind::Heading(level) => parent.push_block(Block::Heading {
            level,
            content: frame.inlines,
        }),
        Kind::BlockQuote => {
            let blocks = finish(frame.blocks, frame.inlines);
            parent.push_block(Block::BlockQuote(blocks));
        }
        Kind::CodeBlock { lang, code } => parent.push_block(Block::CodeBlock { lang, code }),
        Kind::HtmlBlock(html) => {
            let html = html.trim_end();
            if !html.is_empty() {
                parent.push_block(Block::RawHtml(html.to_owned()));
            }
        }
        Kind::List { start, items } => parent.push_block(Block::List { start, items }),
        Kind::Item { task } => {
            let blocks = finish(frame.blocks, frame.inlines);
            match &mut parent.kind {
                Kind::List { items, .. } => items.push(ListItem { task, blocks }),
                _ => parent.blocks.extend(blocks),
            }
        }
        Kind::Table {
            alignments,
            head,
            rows,
        } => parent.push_block(Block::Table {
            alignments,
            head,
            rows,
        }),
        Kind::Row { head, cells } => match &mut parent.kind {
            Kind::Table {
                head: table_head,
                rows,
                ..
            } => {
                if head {
                    *table_head = cells;
                } else {
                    rows.push(cells);
                }
            }
            _ => {
                for cell in cells {
                    parent.push_block(Block::Plain(cell));
                }
            }
        },
        Kind::Cell => match &mut parent.kind {
            Kind::Row { cells, .. } => cells.push(frame.inlines),
            _ => {
                for inline in frame.inlines {
                    parent.push_inline(inline);
                }
            }
        },
        Kind::Emphasis => parent.push_inline(Inline::Emphasis(frame.inlines)),
        Kind::Strong => parent.push_inline(Inline::Strong(frame.inlines)),
        Kind::Strikethrough => parent.push_inline(Inline::Strikethrough(frame.inlines)),
        Kind::Link {
            href: Some(href),
            title,
        } => parent.push_inline(Inline::Link {
            href,
            title,
            content: frame.inlines,
        }),
        // A link with a forbidden destination: keep only its text.
        Kind::Link { href: None, .. } => {
            for inline in frame.inlines {
                parent.push_inline(inline);
            }
        }
        Kind::Image { url } => {
            let mut alt = String::new();
            plain_text(&frame.inlines, &mut alt);
            let href = sanitize_url(&url);
            parent.push_inline(Inline::Image { alt, url, href });
        }
        Kind::Transparent => {
            if !frame.blocks.is_empty() {
                parent.flush_inlines();
                parent.blocks.extend(frame.blocks);
            }
            for inline in frame.inlines {
                parent.push_inline(inline);
            }
        }
    }
}

/// Parses markdown into an owned tree. Never panics, whatever the input (incomplete input
/// while streaming, e.g. an unterminated code fence, is closed implicitly by the parser).
pub fn parse(text: &str) -> Vec<Block> {
    parse_tracked(text).0
}

/// Where the last top-level element of a document starts: `cut` is the byte offset of the start
/// of its line, `index` how many blocks the document has before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LastTop {
    pub cut: usize,
    pub index: usize,
}

/// [`parse`], also saying where the last top-level element starts (`None` for an empty
/// document). Everything before it is closed for good: text appended later cannot change it
/// (CommonMark never reopens a block once a sibling has started; link reference definitions are
/// the one exception, see `incremental`).
pub(crate) fn parse_tracked(text: &str) -> (Vec<Block>, Option<LastTop>) {
    let mut stack: Vec<Frame> = vec![Frame::new(Kind::Root)];
    let mut last = None;
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        if stack.len() == 1 && matches!(event, Event::Start(_) | Event::Rule) {
            last = Some((range.start, stack[0].blocks.len()));
        }
        match event {
            Event::Start(tag) => {
                let kind = start_kind(tag);
                let kind = if stack.len() > MAX_NESTING && nests(&kind) {
                    Kind::Transparent
                } else {
                    kind
                };
                stack.push(Frame::new(kind));
            }
            // Start/End events are balanced, so an end closes the innermost open element.
            Event::End(_) => {
                if stack.len() > 1 {
                    let frame = stack.pop().expect("stack has a parent");
                    close(frame, top(&mut stack));
                }
            }
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => top(&mut stack).push_text(&t),
            Event::Code(code) => top(&mut stack).push_inline(Inline::Code(code.into_string())),
            Event::InlineMath(math) => {
                top(&mut stack).push_inline(Inline::Code(math.into_string()))
            }
            Event::DisplayMath(math) => top(&mut stack).push_block(Block::CodeBlock {
                lang: Some("math".to_owned()),
                code: math.into_string(),
            }),
            Event::FootnoteReference(label) => top(&mut stack).push_text(&format!("[^{label}]")),
            Event::SoftBreak => top(&mut stack).push_text("\n"),
            Event::HardBreak => top(&mut stack).push_inline(Inline::HardBreak),
            Event::Rule => top(&mut stack).push_block(Block::Rule),
            Event::TaskListMarker(checked) => {
                // Inside the item (tight list) or inside its first paragraph (loose list).
                if let Some(Frame {
                    kind: Kind::Item { task },
                    ..
                }) = stack
                    .iter_mut()
                    .rev()
                    .find(|f| matches!(f.kind, Kind::Item { .. }))
                {
                    *task = Some(checked);
                }
            }
        }
    }
    while stack.len() > 1 {
        let frame = stack.pop().expect("stack has a parent");
        close(frame, top(&mut stack));
    }
    let blocks = stack
        .pop()
        .map(|root| finish(root.blocks, root.inlines))
        .unwrap_or_default();
    let last = last.map(|(start, index)| LastTop {
        cut: text[..start].rfind('\n').map_or(0, |i| i + 1),
        index,
    });
    (blocks, last)
}

fn top(stack: &mut [Frame]) -> &mut Frame {
    stack.last_mut().expect("the root frame is never popped")
}

//! A safe markdown renderer for untrusted (agent) text.
//!
//! The markdown is parsed with `pulldown-cmark` into a small owned tree ([`Block`] / [`Inline`]),
//! which is then rendered as Leptos view nodes. No HTML string is ever produced and nothing is
//! injected with `inner_html`: every piece of text goes through Leptos' escaping text nodes and
//! attribute values.
//!
//! Security decisions:
//! - Raw HTML (`Event::Html` / `Event::InlineHtml`) is kept as *literal text*: an HTML block
//!   becomes [`Block::RawHtml`] (shown preformatted), inline HTML becomes [`Inline::Text`].
//! - Links keep their anchor only when the destination passes [`sanitize_url`]: `http:`,
//!   `https:`, `mailto:` or a scheme-less (relative, fragment, protocol-relative) URL, after
//!   stripping leading/trailing whitespace and control characters, removing embedded tab/newline
//!   characters (as browsers do) and case-folding the scheme. Any other link (`javascript:`,
//!   `data:`, `vbscript:`, unknown schemes, empty destinations) is replaced by its text.
//!   Anchors open in a new tab with `rel="noopener noreferrer nofollow"`.
//! - Nesting is bounded: an element opened inside [`MAX_NESTING`] others (block quotes, lists,
//!   emphasis, links…) is spliced into its parent instead of nesting, so the tree, its rendering
//!   (which recurses once per level, on the server as in the browser) and its drop are bounded
//!   whatever the input: 100,000 `>` render as one flat quote's text, not 100,000 frames.
//! - Images are never loaded (no tracking pixels, no remote content): an image renders as the
//!   text `[image: alt]` (a link to the image when its URL is allowed) followed by the URL as text.

mod incremental;

use incremental::{live_block, Incremental, Row};
use leptos::prelude::*;
use pulldown_cmark::{
    Alignment, CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag,
};

/// The `rel` attribute of every anchor rendered from markdown.
const LINK_REL: &str = "noopener noreferrer nofollow";
/// At most this many characters of an image URL are shown (data URLs can be huge).
const MAX_SHOWN_URL: usize = 120;
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
fn plain_text(inlines: &[Inline], out: &mut String) {
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

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/// Render markdown text as view nodes. `text` may grow as a message streams.
///
/// Parsing and rendering are incremental (see [`incremental`]): complete top-level blocks are
/// parsed once and keep their nodes; only the last block is parsed and updated as text arrives.
#[component]
pub fn Markdown(#[prop(into)] text: Signal<String>) -> impl IntoView {
    let doc = StoredValue::new(Incremental::default());
    let parsed = Memo::new(move |_| {
        text.with(|t| doc.update_value(|d| d.update(t)));
        doc.with_value(|d| (d.rows(), d.live()))
    });
    let live = Memo::new(move |_| parsed.with(|p| p.1.clone()));
    let rows = move || parsed.with(|p| p.0.clone());
    let row_view = move |row: Row| match row {
        Row::Done(_, _, block) => render_block((*block).clone()),
        Row::Live(..) => live_block(live),
    };
    view! {
        <div class="md">
            <For each=rows key=Row::key children=row_view/>
        </div>
    }
    // Type-erased so that callers' view types stay shallow.
    .into_any()
}

fn render_blocks(blocks: Vec<Block>) -> AnyView {
    blocks
        .into_iter()
        .map(render_block)
        .collect_view()
        .into_any()
}

fn render_block(block: Block) -> AnyView {
    match block {
        Block::Heading { level, content } => {
            let content = render_inlines(content);
            match level {
                1 => view! { <h1>{content}</h1> }.into_any(),
                2 => view! { <h2>{content}</h2> }.into_any(),
                3 => view! { <h3>{content}</h3> }.into_any(),
                4 => view! { <h4>{content}</h4> }.into_any(),
                5 => view! { <h5>{content}</h5> }.into_any(),
                _ => view! { <h6>{content}</h6> }.into_any(),
            }
        }
        Block::Paragraph(content) => view! { <p>{render_inlines(content)}</p> }.into_any(),
        Block::Plain(content) => render_inlines(content),
        Block::CodeBlock { lang, code } => code_block(lang, code),
        Block::List { start, items } => {
            let items = items.into_iter().map(render_item).collect_view();
            match start {
                Some(start) => {
                    let start = (start != 1).then_some(start);
                    view! { <ol start=start>{items}</ol> }.into_any()
                }
                None => view! { <ul>{items}</ul> }.into_any(),
            }
        }
        Block::BlockQuote(blocks) => {
            view! { <blockquote>{render_blocks(blocks)}</blockquote> }.into_any()
        }
        Block::Table {
            alignments,
            head,
            rows,
        } => {
            let head = table_row(head, &alignments, true);
            let rows = rows
                .into_iter()
                .map(|row| table_row(row, &alignments, false))
                .collect_view();
            view! {
                <div class="md-table-wrap">
                    <table>
                        <thead>{head}</thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
            .into_any()
        }
        Block::Rule => view! { <hr/> }.into_any(),
        Block::RawHtml(html) => view! { <div class="md-raw-html">{html}</div> }.into_any(),
    }
}

/// One table row (`<th>` cells for the header).
fn table_row(cells: Vec<Vec<Inline>>, alignments: &[Align], head: bool) -> AnyView {
    let style = |i: usize| match alignments.get(i).copied().unwrap_or(Align::None) {
        Align::None => None,
        Align::Left => Some("text-align:left"),
        Align::Center => Some("text-align:center"),
        Align::Right => Some("text-align:right"),
    };
    let cells = cells
        .into_iter()
        .enumerate()
        .map(|(i, cell)| {
            let (style, content) = (style(i), render_inlines(cell));
            if head {
                view! { <th style=style>{content}</th> }.into_any()
            } else {
                view! { <td style=style>{content}</td> }.into_any()
            }
        })
        .collect_view();
    view! { <tr>{cells}</tr> }.into_any()
}

fn render_item(item: ListItem) -> AnyView {
    let blocks = render_blocks(item.blocks);
    match item.task {
        Some(checked) => view! {
            <li class="task-list-item">
                <input type="checkbox" disabled=true checked=checked/>
                " "
                {blocks}
            </li>
        }
        .into_any(),
        None => view! { <li>{blocks}</li> }.into_any(),
    }
}

fn render_inlines(inlines: Vec<Inline>) -> AnyView {
    inlines
        .into_iter()
        .map(render_inline)
        .collect_view()
        .into_any()
}

fn render_inline(inline: Inline) -> AnyView {
    match inline {
        Inline::Text(text) => text.into_any(),
        Inline::Code(code) => view! { <code>{code}</code> }.into_any(),
        Inline::Emphasis(c) => view! { <em>{render_inlines(c)}</em> }.into_any(),
        Inline::Strong(c) => view! { <strong>{render_inlines(c)}</strong> }.into_any(),
        Inline::Strikethrough(c) => view! { <del>{render_inlines(c)}</del> }.into_any(),
        Inline::Link {
            href,
            title,
            content,
        } => view! {
            <a href=href title=title target="_blank" rel=LINK_REL>{render_inlines(content)}</a>
        }
        .into_any(),
        Inline::Image { alt, url, href } => {
            let label = if alt.is_empty() {
                "[image]".to_owned()
            } else {
                format!("[image: {alt}]")
            };
            let label = match href {
                Some(href) => view! {
                    <a href=href target="_blank" rel=LINK_REL>{label}</a>
                }
                .into_any(),
                None => label.into_any(),
            };
            // The full URL as a tooltip only when the shown one is shortened.
            let shown = shorten(&url, MAX_SHOWN_URL);
            let title = (shown.len() != url.len()).then_some(url);
            view! {
                <span class="md-image" title=title>
                    {label}
                    " "
                    <span class="md-image-url">{format!("({shown})")}</span>
                </span>
            }
            .into_any()
        }
        Inline::HardBreak => view! { <br/> }.into_any(),
    }
}

/// At most `max` characters of `s`, with an ellipsis when shortened.
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// The state of a Copy button (a code block's, a message's).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CopyState {
    Idle,
    /// Copied by the click with this id.
    Copied(u32),
    /// The clipboard is unavailable or refused (click id).
    Failed(u32),
}

fn code_block(lang: Option<String>, code: String) -> AnyView {
    let body = code.clone().into_any();
    code_block_view(lang, body, move || code.clone())
}

/// A code block around `body` (the code's nodes); the Copy button copies `code()` as it is
/// when clicked.
fn code_block_view(
    lang: Option<String>,
    body: AnyView,
    code: impl Fn() -> String + Send + Sync + 'static,
) -> AnyView {
    let state = RwSignal::new(CopyState::Idle);
    let (label, code_view) = match lang {
        Some(lang) => {
            let class = format!("language-{lang}");
            (lang, view! { <code class=class>{body}</code> }.into_any())
        }
        None => ("text".to_owned(), view! { <code>{body}</code> }.into_any()),
    };
    // The handler only does something in the browser.
    let on_copy = move |_: leptos::ev::MouseEvent| {
        #[cfg(feature = "hydrate")]
        copy_to_clipboard(&code(), state);
        #[cfg(not(feature = "hydrate"))]
        let _ = (&code, state);
    };
    let button_text = move || match state.get() {
        CopyState::Idle => "Copy",
        CopyState::Copied(_) => "Copied",
        CopyState::Failed(_) => "Copy failed",
    };
    view! {
        <div class="md-code">
            <div class="md-code-header">
                <span class="md-code-lang">{label}</span>
                <button type="button" class="md-copy" aria-label="Copy code" on:click=on_copy>
                    {button_text}
                </button>
            </div>
            <pre>{code_view}</pre>
        </div>
    }
    .into_any()
}

/// Copies `text` with the async clipboard API; shows "Copied" (or "Copy failed") for 1.5 s.
#[cfg(feature = "hydrate")]
pub(crate) fn copy_to_clipboard(text: &str, state: RwSignal<CopyState>) {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;
    use wasm_bindgen::JsValue;

    static CLICKS: AtomicU32 = AtomicU32::new(0);
    let click = CLICKS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
    let finish = move |ok: bool| {
        state.try_set(if ok {
            CopyState::Copied(click)
        } else {
            CopyState::Failed(click)
        });
        set_timeout(
            move || {
                // Only the latest click resets the label.
                if matches!(state.try_get_untracked(),
                    Some(CopyState::Copied(c) | CopyState::Failed(c)) if c == click)
                {
                    state.try_set(CopyState::Idle);
                }
            },
            Duration::from_millis(1500),
        );
    };

    let Some(window) = web_sys::window() else {
        return finish(false);
    };
    let navigator = window.navigator();
    // `navigator.clipboard` is undefined outside secure contexts: calling it would throw.
    let available = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))
        .map(|c| !c.is_undefined() && !c.is_null())
        .unwrap_or(false);
    if !available {
        return finish(false);
    }
    let promise = navigator.clipboard().write_text(text);
    leptos::task::spawn_local(async move {
        let ok = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        finish(ok);
    });
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests;

//! Markdown text → an owned, bounded tree ([`Block`] / [`Inline`]), with every URL checked
//! (see the parent module for the security decisions).

use pulldown_cmark::{Event, Options, Parser};

mod element;
mod sanitize;
mod tree;

use element::{close, nests, start_kind};
pub use sanitize::sanitize_url;
pub(super) use tree::plain_text;
pub use tree::{Align, Block, Inline, ListItem};

/// The `rel` attribute of every anchor rendered from markdown.
pub(super) const LINK_REL: &str = "noopener noreferrer nofollow";
/// At most this many characters of an image URL are shown (data URLs can be huge).
pub(super) const MAX_SHOWN_URL: usize = 120;
/// Elements nest at most about this deep (see the module notes): deeper ones render flat.
pub const MAX_NESTING: usize = 16;

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

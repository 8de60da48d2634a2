//! What each element of the source opens as, and what it leaves in its parent when it closes.

use pulldown_cmark::{Alignment, CodeBlockKind, HeadingLevel, LinkType, Tag};

use super::sanitize::sanitize_lang;
use super::{finish, plain_text, sanitize_url, Align, Block, Frame, Inline, Kind, ListItem};

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

pub(super) fn start_kind(tag: Tag<'_>) -> Kind {
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
pub(super) fn nests(kind: &Kind) -> bool {
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
pub(super) fn close(frame: Frame, parent: &mut Frame) {
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

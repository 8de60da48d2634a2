//! The tree → Leptos view nodes: text through escaping text nodes and attributes only.

use leptos::prelude::*;

use super::parse::{Align, Block, Inline, ListItem, LINK_REL, MAX_SHOWN_URL};
#[cfg(feature = "hydrate")]
use crate::ui::clipboard::copy_to_clipboard;
use crate::ui::clipboard::CopyState;

fn render_blocks(blocks: Vec<Block>) -> AnyView {
    blocks
        .into_iter()
        .map(render_block)
        .collect_view()
        .into_any()
}

pub(super) fn render_block(block: Block) -> AnyView {
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
pub(super) fn table_row(cells: Vec<Vec<Inline>>, alignments: &[Align], head: bool) -> AnyView {
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

pub(super) fn render_item(item: ListItem) -> AnyView {
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

pub(super) fn render_inline(inline: Inline) -> AnyView {
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
pub(super) fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

fn code_block(lang: Option<String>, code: String) -> AnyView {
    let body = code.clone().into_any();
    code_block_view(lang, body, move || code.clone())
}

/// A code block around `body` (the code's nodes); the Copy button copies `code()` as it is
/// when clicked.
pub(super) fn code_block_view(
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

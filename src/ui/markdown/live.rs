//! The open block of a streaming message as view nodes: its element is created once and its
//! children follow the parse, chunked and keyed so a growing paragraph, code block, list or
//! table only touches its tail (see [`super::incremental`] for why, and for the parse).

use std::hash::Hash;
use std::sync::Arc;

use leptos::prelude::*;

use super::incremental::{chunks, hash_of, pieces, sections};
use super::parse::{Align, Block, Inline};
use super::render::{code_block_view, render_block, render_inline, render_item, table_row};

/// Items keyed by (position, hash): those that did not change keep their nodes.
fn keyed<T>(
    items: impl Fn() -> Vec<T> + Send + Sync + 'static,
    render: impl Fn(T) -> AnyView + Send + Sync + Clone + 'static,
) -> AnyView
where
    T: Hash + Send + Sync + 'static,
{
    let each = move || {
        items()
            .into_iter()
            .enumerate()
            .map(|(i, t)| ((i, hash_of(&t)), t))
            .collect::<Vec<_>>()
    };
    view! { <For each key=|(k, _)| *k children=move |(_, t)| render(t)/> }.into_any()
}

/// Inline content of the open block, chunked and keyed. Each text chunk is a `<span>`: adjacent
/// text nodes would merge into one in the server-rendered HTML and no longer match what
/// hydration expects.
///
/// Past one section (see [`sections`]), each section is a `span.md-sec` (a block) with its own
/// keyed list, so the browser lays out only the section that changed.
fn live_inlines(get: impl Fn() -> Vec<Inline> + Send + Sync + 'static) -> AnyView {
    let parts = Memo::new(move |_| sections(pieces(&get())));
    let sectioned = Memo::new(move |_| parts.with(|p| p.len() > 1));
    let section = move |s: usize| move || parts.with(|p| p.get(s).cloned().unwrap_or_default());
    (move || {
        if sectioned.get() {
            let each = move || (0..parts.with(Vec::len)).collect::<Vec<_>>();
            view! {
                <For
                    each
                    key=|s| *s
                    children=move |s| {
                        view! {
                            <span class="md-sec">
                                <For each=section(s) key=|(k, _)| *k children=|(_, i)| render_piece(i)/>
                            </span>
                        }
                    }
                />
            }
            .into_any()
        } else {
            view! { <For each=section(0) key=|(k, _)| *k children=|(_, i)| render_piece(i)/> }
                .into_any()
        }
    })
    .into_any()
}

fn render_piece(inline: Inline) -> AnyView {
    match inline {
        Inline::Text(t) => view! { <span>{t}</span> }.into_any(),
        other => render_inline(other),
    }
}

/// The open block: its element is created once (the row's key includes its shape) and its
/// children follow `live`.
pub(crate) fn live_block(live: Memo<Option<Block>>) -> AnyView {
    let inlines = move || {
        live.with(|b| match b {
            Some(Block::Paragraph(c) | Block::Plain(c) | Block::Heading { content: c, .. }) => {
                c.clone()
            }
            _ => Vec::new(),
        })
    };
    match live.get_untracked() {
        None => ().into_any(),
        Some(Block::Paragraph(_)) => view! { <p>{live_inlines(inlines)}</p> }.into_any(),
        Some(Block::Plain(_)) => live_inlines(inlines),
        Some(Block::Heading { level, .. }) => {
            let content = live_inlines(inlines);
            match level {
                1 => view! { <h1>{content}</h1> }.into_any(),
                2 => view! { <h2>{content}</h2> }.into_any(),
                3 => view! { <h3>{content}</h3> }.into_any(),
                4 => view! { <h4>{content}</h4> }.into_any(),
                5 => view! { <h5>{content}</h5> }.into_any(),
                _ => view! { <h6>{content}</h6> }.into_any(),
            }
        }
        Some(Block::CodeBlock { lang, .. }) => {
            let code = move || {
                live.with(|b| match b {
                    Some(Block::CodeBlock { code, .. }) => code.clone(),
                    _ => String::new(),
                })
            };
            let each = move || {
                let code = code();
                chunks(&code)
                    .enumerate()
                    .map(|(j, c)| ((j, hash_of(c)), c.to_owned()))
                    .collect::<Vec<_>>()
            };
            let body =
                view! { <For each key=|(k, _)| *k children=|(_, c)| view! { <span>{c}</span> }/> }
                    .into_any();
            code_block_view(lang, body, code)
        }
        Some(Block::List { start, .. }) => {
            let items = move || {
                live.with(|b| match b {
                    Some(Block::List { items, .. }) => items.clone(),
                    _ => Vec::new(),
                })
            };
            let items = keyed(items, render_item);
            match start {
                Some(start) => {
                    let start = (start != 1).then_some(start);
                    view! { <ol start=start>{items}</ol> }.into_any()
                }
                None => view! { <ul>{items}</ul> }.into_any(),
            }
        }
        Some(Block::BlockQuote(_)) => {
            let blocks = move || {
                live.with(|b| match b {
                    Some(Block::BlockQuote(blocks)) => blocks.clone(),
                    _ => Vec::new(),
                })
            };
            view! { <blockquote>{keyed(blocks, render_block)}</blockquote> }.into_any()
        }
        Some(Block::Table { alignments, .. }) => {
            let aligns: Arc<[Align]> = alignments.into();
            let part = move |head: bool| {
                live.with(|b| match b {
                    Some(Block::Table { head: h, rows, .. }) => {
                        if head {
                            vec![h.clone()]
                        } else {
                            rows.clone()
                        }
                    }
                    _ => Vec::new(),
                })
            };
            let a = aligns.clone();
            let head = keyed(move || part(true), move |r| table_row(r, &a, true));
            let rows = keyed(move || part(false), move |r| table_row(r, &aligns, false));
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
        // Small and rare as an open block: rendered again when they change.
        Some(Block::Rule | Block::RawHtml(_)) => (move || live.get().map(render_block)).into_any(),
    }
}

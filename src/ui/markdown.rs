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
mod live;
pub mod parse;
mod render;

use leptos::prelude::*;

use incremental::{Incremental, Row};
use live::live_block;
pub use parse::{options, parse, sanitize_url, Align, Block, Inline, ListItem, MAX_NESTING};
use render::render_block;

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

#[cfg(test)]
mod tests;

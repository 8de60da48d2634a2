//! The inspector's list rows: what a row shows ([`RowView`]) and the row itself ([`EventRow`]),
//! which the list moves from event to event as it scrolls or follows the stream.

use leptos::prelude::*;

use super::{one_line, ROW_PX};
use crate::client::event_log::{EventRecord, Key};

/// The list's rows for `records`, for the page's rehearsal of its views ([`crate::ui::warm`]).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
pub(crate) fn rehearsal_rows(records: Vec<EventRecord>) -> impl IntoView {
    let selected = RwSignal::new(None::<Key>);
    let on_select = Callback::new(move |key: Key| selected.set(Some(key)));
    let rows = records
        .into_iter()
        .enumerate()
        .map(|(pos, record)| {
            let row = RwSignal::new(Some(RowView::new(pos, Key::Live(record.key), &record)));
            // A redraw while following moves every row to another event.
            row.update(|r| {
                if let Some(r) = r {
                    r.pos += 1;
                    r.line.push(' ');
                }
            });
            view! { <EventRow row=row.into() selected on_select/> }
        })
        .collect_view();
    view! { <ol class="events">{rows}</ol> }
}

/// What one row shows: an event at a position of the filtered list.
#[derive(Clone, PartialEq)]
pub(super) struct RowView {
    pub(super) pos: usize,
    pub(super) key: Key,
    n: u32,
    type_name: &'static str,
    line: String,
    since: String,
    /// The verifier's warnings, one per line.
    warnings: Option<String>,
}

impl RowView {
    pub(super) fn new(pos: usize, key: Key, record: &EventRecord) -> RowView {
        RowView {
            pos,
            key,
            n: record.n,
            type_name: record.type_name,
            line: one_line(&record.text),
            since: format!("+{:.0} ms", (record.at_ms - record.run_started_ms).max(0.0)),
            warnings: (!record.warnings.is_empty()).then(|| record.warnings.join("\n")),
        }
    }
}

/// One row of the list. The list keeps as many rows as it shows and moves them from event to
/// event (a fast stream moves the whole window on every redraw): a row is built once and then
/// only its text and attributes change. A row with no event is hidden.
#[component]
pub(super) fn EventRow(
    row: Signal<Option<RowView>>,
    selected: RwSignal<Option<Key>>,
    on_select: Callback<Key>,
) -> impl IntoView {
    let get = move |f: fn(&RowView) -> String| {
        move || row.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    view! {
        <li
            class="event"
            class:has-warnings=move || row.with(|r| r.as_ref().is_some_and(|r| r.warnings.is_some()))
            hidden=move || row.with(Option::is_none)
            data-type=move || row.with(|r| r.as_ref().map(|r| r.type_name))
            style:top=move || row.with(|r| format!("{}px", r.as_ref().map_or(0, |r| r.pos) as f64 * ROW_PX))
        >
            <button
                type="button"
                class="event-row"
                aria-pressed=move || {
                    let key = row.with(|r| r.as_ref().map(|r| r.key));
                    (key.is_some() && selected.get() == key).to_string()
                }
                title=move || row.with(|r| r.as_ref().and_then(|r| r.warnings.clone()))
                on:click=move |_| {
                    if let Some(key) = row.with_untracked(|r| r.as_ref().map(|r| r.key)) {
                        on_select.run(key);
                    }
                }
            >
                <span class="event-seq">{get(|r| r.n.to_string())}</span>
                <span class="event-type">{move || row.with(|r| r.as_ref().map(|r| r.type_name))}</span>
                <code class="event-line">{get(|r| r.line.clone())}</code>
                <span class="event-time">{get(|r| r.since.clone())}</span>
            </button>
        </li>
    }
    .into_any()
}

//! The event inspector: the thread's whole story — the stored events of its earlier runs
//! (loaded when the panel opens) followed by what the session streams live — one row per event
//! (its number in its run, type, time since its run started, one line of JSON), the verifier's
//! warnings in a warning colour. Only the rows in view exist in the page, so a hundred
//! thousand events scroll like ten; the filter's matches are indexed as events arrive, not
//! recomputed. It follows the newest event until the user scrolls away ("Latest events" jumps
//! back). A row opens its event as a tree below the list. Above the list: the per-run summary
//! and timeline ([`runs`]), and export / open recording ([`files`]).

use std::sync::Arc;

use leptos::html::Div;
use leptos::prelude::*;

use crate::client::event_log::{EventRecord, Filter, FilteredIndex, Key};
use crate::client::history::History;
use crate::ui::dock::CloseButton;
use crate::ui::render_hints::JsonView;
use crate::ui::util::{stick_to_bottom, throttled_tick, truncate, Stick};

#[path = "inspector/files.rs"]
mod files;
#[path = "inspector/rows.rs"]
mod rows;
#[path = "inspector/runs.rs"]
mod runs;
#[path = "inspector/sources.rs"]
mod sources;
#[cfg_attr(not(feature = "hydrate"), allow(unused_imports))]
pub(crate) use rows::rehearsal_rows;
use rows::{EventRow, RowView};
use sources::Sources;

/// The height of one row, in CSS pixels (the stylesheet's `.event-row` matches it).
pub const ROW_PX: f64 = 26.0;
/// Rows rendered above and below the visible ones while the user scrolls (none while the list
/// follows the newest event: each redraw then moves the window by every event that arrived, so
/// rows above or below the view would only be built to be thrown away).
const OVERSCAN: usize = 8;
/// Characters of the one-line JSON view.
const ONE_LINE: usize = 160;
/// Milliseconds between two redraws of the inspector while events stream in: a stream of
/// thousands of events a second is not read row by row, and redrawing the list, the counts and
/// the run list on every animation frame made the page slow to type in.
const REFRESH_MS: u64 = 100;

/// The one-line view of an event: its JSON without `type` and `timestamp`, shortened.
pub fn one_line(text: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.remove("type");
        o.remove("timestamp");
    }
    truncate(&v.to_string(), ONE_LINE)
}

/// The inspector panel, its code loaded on demand: the browser fetches it (a WASM chunk of its
/// own in a `cargo leptos build --split`) the first time the panel opens. The panel starts
/// closed, so the server never renders it and hydration never waits for it. Takes
/// [`Inspector`]'s props.
pub fn lazy_inspector(props: InspectorProps) -> impl IntoView {
    crate::ui::lazy::panel("The event inspector", inspector_view(props))
}

// The split point: everything only the inspector uses goes into its chunk.
crate::ui::lazy::split_view!(
    inspector_view,
    __preload_inspector_view,
    fn inspector_view(props: InspectorProps) {
        Inspector(props).into_any()
    }
);

/// The inspector panel (`<aside aria-label="Event inspector">`).
#[component]
pub fn Inspector(
    /// The session's events, oldest first.
    #[prop(into)]
    events: Signal<Vec<EventRecord>>,
    /// The thread's stored history.
    history: History,
    /// The thread (names exported files).
    #[prop(into)]
    thread_id: Signal<String>,
    /// Replays a recording in a new thread.
    on_open_recording: Callback<Vec<u8>>,
    /// Closes the panel (its close button).
    #[prop(optional)]
    on_close: Option<Callback<()>>,
) -> impl IntoView {
    let (changed, bump) = throttled_tick(REFRESH_MS);
    let src = Sources {
        live: events,
        history,
        changed,
    };
    let text = RwSignal::new(String::new());
    let run = RwSignal::new(None::<Arc<str>>);
    let warnings_only = RwSignal::new(false);
    let filter = Memo::new(move |_| Filter {
        text: text.get(),
        run: run.get(),
        warnings_only: warnings_only.get(),
    });
    // Every new event is indexed as it arrives; the views follow the throttled tick, except
    // that a new filter shows its matches at once.
    let index = StoredValue::new(FilteredIndex::default());
    let version = changed;
    Effect::new(move |prev: Option<Filter>| {
        let f = filter.get();
        src.with_tracked(|h, l| index.update_value(|i| _ = i.update(&f, h, l)));
        if prev.as_ref().is_some_and(|p| *p != f) {
            version.update(|v| *v += 1);
        } else {
            bump();
        }
        f
    });
    let shown = move || {
        version.track();
        index.with_value(FilteredIndex::len)
    };
    let total = move || src.with(|h, l| h.len() + l.len());
    let warning_count = move || {
        src.with(|h, l| {
            h.iter()
                .chain(l.iter())
                .map(|r| r.warnings.len())
                .sum::<usize>()
        })
    };

    let list = NodeRef::<Div>::new();
    let scroll_top = RwSignal::new(0.0f64);
    let view_h = RwSignal::new(480.0f64);
    let selected = RwSignal::new(None::<Key>);
    // Follow the newest event (scrolling once the new rows are laid out).
    let Stick {
        following,
        on_scroll: follow_scroll,
        jump: jump_latest,
        follow,
    } = stick_to_bottom(list, || true);
    let on_scroll = move |_| {
        follow_scroll();
        if let Some(el) = list.get_untracked() {
            scroll_top.set(el.scroll_top() as f64);
            let h = el.client_height() as f64;
            if (view_h.get_untracked() - h).abs() > 0.5 {
                view_h.set(h);
            }
        }
    };
    // A new filter shows its newest matches.
    Effect::new(move |prev: Option<Filter>| {
        let f = filter.get();
        if prev.is_some_and(|p| p != f) {
            follow();
        }
        f
    });
    // The rows in view (while following: the last ones, before the scroll catches up).
    let window = Memo::new(move |_| {
        version.track();
        let n = index.with_value(FilteredIndex::len);
        let visible = (view_h.get() / ROW_PX).ceil() as usize + 1;
        let following = following.get();
        let overscan = if following { 0 } else { OVERSCAN };
        // Past the end (the list just got shorter, before the browser's scroll event): the
        // last rows.
        let last_start = n.saturating_sub(visible + overscan);
        let first = if following {
            last_start
        } else {
            ((scroll_top.get() / ROW_PX) as usize)
                .saturating_sub(overscan)
                .min(last_start)
        };
        let last = (first + visible + 2 * overscan).min(n);
        index.with_value(|i| {
            (first..last)
                .filter_map(|p| i.key_at(p).map(|k| (p, k)))
                .collect::<Vec<_>>()
        })
    });
    // Show one event: select it and scroll it into the middle of the list (the filter is
    // cleared if it hides it).
    let pending_scroll = RwSignal::new(None::<Key>);
    let reveal = Callback::new(move |key: Key| {
        selected.set(Some(key));
        following.set(false);
        if index.with_value(|i| i.position(key)).is_none() {
            text.set(String::new());
            warnings_only.set(false);
            run.set(None);
        }
        pending_scroll.set(Some(key));
    });
    Effect::new(move |_| {
        version.track();
        let Some(key) = pending_scroll.get() else {
            return;
        };
        if let Some(pos) = index.with_value(|i| i.position(key)) {
            pending_scroll.set(None);
            request_animation_frame(move || {
                if let Some(el) = list.get_untracked() {
                    let h = el.client_height();
                    el.set_scroll_top((pos as f64 * ROW_PX) as i32 - h / 2);
                }
            });
        }
    });
    let on_select = Callback::new(move |key: Key| {
        if selected.get_untracked() == Some(key) {
            selected.set(None);
        } else {
            selected.set(Some(key));
            following.set(false);
        }
    });

    view! {
        <aside class="panel inspector" id="inspector-panel" aria-label="Event inspector">
            <div class="panel-head">
                <h2 class="panel-title">"Events"</h2>
                <span class="panel-count" aria-live="off">
                    {move || format!("{} of {}", shown(), total())}
                    {move || {
                        let n = warning_count();
                        (n > 0)
                            .then(|| {
                                view! {
                                    <span class="warn-count">
                                        {format!(" · {n} warning{}", if n == 1 { "" } else { "s" })}
                                    </span>
                                }
                            })
                    }}
                </span>
                {on_close.map(|on_close| view! { <CloseButton label="Close events" on_close/> })}
            </div>
            <div class="inspector-tools">
                <input
                    type="search"
                    class="filter-input"
                    aria-label="Filter events"
                    placeholder="Filter: type or any text"
                    maxlength="200"
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                />
                <runs::RunSelect src run/>
                <label class="check">
                    <input
                        type="checkbox"
                        prop:checked=move || warnings_only.get()
                        on:change=move |ev| warnings_only.set(event_target_checked(&ev))
                    />
                    " Warnings only"
                </label>
                <files::Files src run thread_id on_open_recording/>
            </div>
            {move || {
                history
                    .status
                    .with(|s| s.describe())
                    .map(|line| view! { <p class="inspector-history" role="status">{line}</p> })
            }}
            <runs::RunReport src run reveal/>
            <div class="inspector-list-wrap">
            <div
                class="inspector-list"
                node_ref=list
                on:scroll=on_scroll
                tabindex="0"
                role="region"
                aria-label="Event list"
            >
                <Show when=move || total() == 0>
                    <p class="muted inspector-empty">
                        "No events yet. Send a message: every AG-UI event the agent streams appears here."
                    </p>
                </Show>
                <ol class="events" style:height=move || format!("{}px", shown() as f64 * ROW_PX)>
                    <For
                        each=move || 0..window.with(Vec::len)
                        key=|slot| *slot
                        children=move |slot| {
                            let row = Memo::new(move |prev: Option<&Option<RowView>>| {
                                let (pos, key) = window.with(|w| w.get(slot).copied())?;
                                match prev {
                                    Some(Some(p)) if p.pos == pos && p.key == key => Some(p.clone()),
                                    _ => src.record(key).map(|r| RowView::new(pos, key, &r)),
                                }
                            });
                            view! { <EventRow row=row.into() selected on_select/> }
                        }
                    />
                </ol>
            </div>
            <button
                type="button"
                class="btn small jump-latest inspector-jump"
                hidden=move || following.get() || shown() as f64 * ROW_PX <= view_h.get()
                on:click=move |_| jump_latest()
            >
                "Latest events"
            </button>
            </div>
            <EventDetails src selected/>
        </aside>
    }
    .into_any()
}

/// The selected event as a tree, with its warnings.
#[component]
fn EventDetails(src: Sources, selected: RwSignal<Option<Key>>) -> impl IntoView {
    move || {
        let record = selected.get().and_then(|k| src.record(k))?;
        let json = Signal::stored(record.json());
        let warnings = record
            .warnings
            .iter()
            .map(|w| view! { <li>{w.clone()}</li> })
            .collect_view();
        Some(
            view! {
                <section class="event-details" aria-label="Event details">
                    <div class="event-details-head">
                        <strong class="event-type">{record.type_name}</strong>
                        <span class="muted">
                            {format!(" · event {} of run {}", record.n, truncate(&record.run_id, 24))}
                        </span>
                        <button
                            type="button"
                            class="btn small"
                            on:click=move |_| selected.set(None)
                        >
                            "Close details"
                        </button>
                    </div>
                    {(!record.warnings.is_empty())
                        .then(|| view! { <ul class="event-warnings">{warnings}</ul> })}
                    <JsonView value=json collapsed_depth=3/>
                </section>
            }
            .into_any(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_drops_type_and_time() {
        assert_eq!(
            one_line(r#"{"type":"RUN_STARTED","runId":"r","timestamp":5}"#),
            "{\"runId\":\"r\"}"
        );
        assert!(
            one_line(&format!(r#"{{"delta":"{}"}}"#, "x".repeat(500)))
                .chars()
                .count()
                <= 161
        );
    }
}

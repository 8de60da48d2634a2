//! The event inspector: every event the session delivered, newest at the bottom — its type,
//! the time since its run started, a one-line JSON view that expands to a tree, and the
//! pipeline's warnings in a warning color. A text filter narrows it by type; at most the last
//! [`INSPECTOR_ROWS`] matching events are rendered.

use leptos::html::Div;
use leptos::prelude::*;
use serde_json::Value;

use crate::client::session::EventRecord;
use crate::ui::dock::CloseButton;
use crate::ui::render_hints::JsonView;
use crate::ui::util::{stick_to_bottom, truncate};

/// Events rendered at most (the newest that match the filter).
pub const INSPECTOR_ROWS: usize = 500;
/// Characters of the one-line JSON view.
const ONE_LINE: usize = 160;

/// One row of the inspector: the record and the page-clock time its run started.
#[derive(Clone)]
struct Row {
    record: EventRecord,
    run_start: f64,
}

/// Whether an event type matches the filter text (case-insensitive substring; empty matches).
pub fn matches_filter(type_name: &str, filter: &str) -> bool {
    let f = filter.trim();
    f.is_empty()
        || type_name
            .to_ascii_lowercase()
            .contains(&f.to_ascii_lowercase().replace(' ', "_"))
}

/// The one-line view of an event: its JSON without `type` and `timestamp`, shortened.
pub fn one_line(json: &Value) -> String {
    let text = match json {
        Value::Object(o) => {
            let mut o = o.clone();
            o.remove("type");
            o.remove("timestamp");
            serde_json::to_string(&Value::Object(o)).unwrap_or_default()
        }
        other => other.to_string(),
    };
    truncate(&text, ONE_LINE)
}

/// The inspector panel (`<aside aria-label="Event inspector">`).
#[component]
pub fn Inspector(
    /// The events, oldest first.
    #[prop(into)]
    events: Signal<Vec<EventRecord>>,
    /// Every warning of the session (the count is shown in the header).
    #[prop(into)]
    warnings: Signal<Vec<String>>,
    /// Closes the panel (its close button).
    #[prop(optional)]
    on_close: Option<Callback<()>>,
) -> impl IntoView {
    let filter = RwSignal::new(String::new());
    let warnings_only = RwSignal::new(false);
    // `(seq, page-clock start of its run)` of the rows shown; a row reads its record once.
    let rows = Memo::new(move |_| {
        let f = filter.get();
        let only_warn = warnings_only.get();
        events.with(|evs| {
            let mut run_start = evs.first().map(|e| e.at_ms).unwrap_or(0.0);
            let mut out: Vec<(usize, f64)> = Vec::new();
            for e in evs {
                if e.type_name == "RUN_STARTED" {
                    run_start = e.at_ms;
                }
                if matches_filter(e.type_name, &f) && (!only_warn || !e.warnings.is_empty()) {
                    out.push((e.seq, run_start));
                }
            }
            let cut = out.len().saturating_sub(INSPECTOR_ROWS);
            out.drain(..cut);
            out
        })
    });
    let total = move || events.with(Vec::len);
    let shown = move || rows.with(Vec::len);
    let warning_count = move || warnings.with(Vec::len);

    let list = NodeRef::<Div>::new();
    let (following, on_scroll, jump) = stick_to_bottom(list, move || {
        rows.track();
        true
    });

    view! {
        <aside class="panel inspector" id="inspector-panel" aria-label="Event inspector">
            <div class="panel-head">
                <h2 class="panel-title">"Events"</h2>
                <span class="panel-count">
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
                    placeholder="Filter by type, e.g. TOOL_CALL"
                    prop:value=move || filter.get()
                    on:input=move |ev| filter.set(event_target_value(&ev))
                />
                <label class="check">
                    <input
                        type="checkbox"
                        prop:checked=move || warnings_only.get()
                        on:change=move |ev| warnings_only.set(event_target_checked(&ev))
                    />
                    " Warnings only"
                </label>
            </div>
            <div class="inspector-list" node_ref=list on:scroll=move |_| on_scroll() tabindex="0">
                <Show when=move || total() == 0>
                    <p class="muted inspector-empty">
                        "No events yet. Send a message: every AG-UI event the agent streams appears here."
                    </p>
                </Show>
                <ol class="events">
                    <For
                        each=move || rows.get()
                        key=|r| r.0
                        children=move |(seq, run_start)| {
                            events
                                .with_untracked(|e| {
                                    // Sequence numbers increase along the log.
                                    e.binary_search_by_key(&seq, |r| r.seq).ok().map(|i| e[i].clone())
                                })
                                .map(|record| view! { <EventRow row=Row { record, run_start }/> })
                        }
                    />
                </ol>
            </div>
            <button
                type="button"
                class="btn small jump-latest inspector-jump"
                hidden=move || following.get()
                on:click=move |_| jump()
            >
                "Latest events"
            </button>
        </aside>
    }
    .into_any()
}

#[component]
fn EventRow(row: Row) -> impl IntoView {
    let Row { record, run_start } = row;
    let open = RwSignal::new(false);
    let since = format!("+{:.0} ms", (record.at_ms - run_start).max(0.0));
    let line = one_line(&record.json);
    let json = Signal::stored(record.json.clone());
    let has_warnings = !record.warnings.is_empty();
    let warnings = record
        .warnings
        .iter()
        .map(|w| view! { <li>{w.clone()}</li> })
        .collect_view();
    let on_toggle = move |ev: leptos::ev::Event| {
        use leptos::wasm_bindgen::JsCast;
        if let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<leptos::web_sys::Element>().ok())
        {
            open.set(el.has_attribute("open"));
        }
    };
    view! {
        <li class="event" class:has-warnings=has_warnings data-type=record.type_name>
            <details on:toggle=on_toggle>
                <summary>
                    <span class="event-seq">{record.seq}</span>
                    <span class="event-type">{record.type_name}</span>
                    <span class="event-time">{since}</span>
                    <code class="event-line">{line}</code>
                </summary>
                <Show when=move || open.get()>
                    <JsonView value=json collapsed_depth=3/>
                </Show>
            </details>
            {has_warnings.then(|| view! { <ul class="event-warnings">{warnings}</ul> })}
        </li>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filter_and_one_line() {
        assert!(matches_filter("TOOL_CALL_ARGS", "tool call"));
        assert!(matches_filter("RUN_STARTED", ""));
        assert!(!matches_filter("RUN_STARTED", "text"));
        assert_eq!(
            one_line(&json!({"type": "RUN_STARTED", "runId": "r"})),
            "{\"runId\":\"r\"}"
        );
    }
}

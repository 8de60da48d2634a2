//! The inspector's view of runs: the run filter, and "Runs and timeline" — a summary per run
//! (events, bytes, duration, time to the first event, tokens, warnings, how it ended) and the
//! chosen run's timeline as a waterfall whose bars open the event behind them. Computed only
//! while open, at most twice a second while events stream in.

use std::sync::Arc;

use leptos::prelude::*;

use super::sources::Sources;
use crate::client::event_log::{all, Key};
use crate::client::run_report::{run_stats, timeline, RunStats};
use crate::ui::util::{human_bytes, truncate};

/// Runs summarised at most (the newest).
const MAX_RUNS_SHOWN: usize = 50;
/// Milliseconds between two recomputations while events arrive.
const REPORT_EVERY_MS: i32 = 500;

/// The runs of the records, in order (consecutive records of one run counted once).
fn run_ids(src: &Sources) -> Vec<Arc<str>> {
    src.with(|h, l| {
        let mut ids: Vec<Arc<str>> = Vec::new();
        for r in h.iter().chain(l.iter()) {
            if ids.last() != Some(&r.run_id) && !ids.contains(&r.run_id) {
                ids.push(r.run_id.clone());
            }
        }
        ids
    })
}

/// "All runs" or one run.
#[component]
pub(super) fn RunSelect(src: Sources, run: RwSignal<Option<Arc<str>>>) -> impl IntoView {
    let ids = Memo::new(move |_| run_ids(&src));
    view! {
        <select
            class="run-select"
            aria-label="Run"
            prop:value=move || run.get().map(|r| r.to_string()).unwrap_or_default()
            on:change=move |ev| {
                let v = event_target_value(&ev);
                run.set((!v.is_empty()).then(|| Arc::from(v.as_str())));
            }
        >
            <option value="">"All runs"</option>
            {move || {
                ids.get()
                    .into_iter()
                    .enumerate()
                    .map(|(i, id)| {
                        let label = format!("Run {} · {}", i + 1, truncate(&id, 18));
                        view! { <option value=id.to_string()>{label}</option> }
                    })
                    .collect_view()
            }}
        </select>
    }
}

/// A tick that follows `src` at most every [`REPORT_EVERY_MS`] while `open`.
fn throttled(src: Sources, open: RwSignal<bool>) -> RwSignal<u64> {
    let tick = RwSignal::new(0u64);
    let waiting = StoredValue::new(false);
    Effect::new(move |_| {
        src.changed.track();
        if !open.get() || waiting.get_value() {
            return;
        }
        waiting.set_value(true);
        set_timeout(
            move || {
                waiting.set_value(false);
                tick.update(|t| *t += 1);
            },
            std::time::Duration::from_millis(REPORT_EVERY_MS as u64),
        );
    });
    // Opening shows the figures at once.
    Effect::new(move |_| {
        if open.get() {
            tick.update(|t| *t += 1);
        }
    });
    tick
}

fn ms(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.1} s", v / 1000.0)
    } else {
        format!("{v:.0} ms")
    }
}

/// "Runs and timeline".
#[component]
pub(super) fn RunReport(
    src: Sources,
    run: RwSignal<Option<Arc<str>>>,
    /// Shows one event in the list.
    reveal: Callback<Key>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let tick = throttled(src, open);
    let stats = Memo::new(move |_| {
        tick.track();
        if !open.get_untracked() {
            return Vec::new();
        }
        let all_stats = src.with_untracked(|h, l| run_stats(h.iter().chain(l.iter())));
        let cut = all_stats.len().saturating_sub(MAX_RUNS_SHOWN);
        all_stats[cut..].to_vec()
    });
    // The run the timeline draws: the filtered one, else the last.
    let chosen = Memo::new(move |_| {
        run.get()
            .or_else(|| stats.with(|s| s.last().map(|s| s.run_id.clone())))
    });
    let bars = Memo::new(move |_| {
        tick.track();
        let Some(id) = chosen.get() else {
            return (0.0, Vec::new());
        };
        src.with_untracked(|h, l| timeline(all(h, l).filter(|(_, r)| r.run_id == id)))
    });
    view! {
        <details
            class="inspector-report"
            on:toggle=move |ev| {
                use leptos::wasm_bindgen::JsCast;
                let el = ev.target().and_then(|t| t.dyn_into::<leptos::web_sys::Element>().ok());
                open.set(el.is_some_and(|el| el.has_attribute("open")));
            }
        >
            <summary>"Runs and timeline"</summary>
            <div class="run-table-wrap">
                <table class="run-table">
                    <caption class="visually-hidden">"Runs of this thread"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Run"</th>
                            <th scope="col" class="num">"Events"</th>
                            <th scope="col" class="num">"Bytes"</th>
                            <th scope="col" class="num">"Time"</th>
                            <th scope="col" class="num" title="From the request to the first event">"1st event"</th>
                            <th scope="col" class="num" title="Input / output tokens">"Tokens"</th>
                            <th scope="col" class="num" title="Verifier warnings">"Warn."</th>
                            <th scope="col">"Ended"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || stats.get().into_iter().map(|s| view! { <StatsRow s run/> }).collect_view()}
                    </tbody>
                </table>
            </div>
            {move || {
                let (len, bars) = bars.get();
                let id = chosen.get()?;
                let scale = if len > 0.0 { 100.0 / len } else { 0.0 };
                let rows = bars
                    .into_iter()
                    .map(|b| {
                        let left = b.start_ms * scale;
                        let width = ((b.end_ms - b.start_ms) * scale).max(0.5);
                        let state = if b.open { ", still open" } else { "" };
                        let label = format!(
                            "{} {}: {}–{}{state}",
                            b.kind.as_str(),
                            b.label,
                            ms(b.start_ms),
                            ms(b.end_ms),
                        );
                        let key = b.key;
                        view! {
                            <li class="bar-row">
                                <span class="bar-name" title=b.label.clone()>{b.label.clone()}</span>
                                <span class="bar-track">
                                    <button
                                        type="button"
                                        class=format!("bar bar-{}", b.kind.as_str().replace(' ', "-"))
                                        class:open=b.open
                                        style:left=format!("{left:.2}%")
                                        style:width=format!("{width:.2}%")
                                        aria-label=label.clone()
                                        title=label
                                        on:click=move |_| reveal.run(key)
                                    ></button>
                                </span>
                            </li>
                        }
                    })
                    .collect_view();
                Some(
                    view! {
                        <div class="timeline" role="group" aria-label="Timeline">
                            <p class="timeline-head muted">
                                {format!("Timeline of run {} · {}", truncate(&id, 24), ms(len))}
                            </p>
                            <ol class="timeline-bars">{rows}</ol>
                        </div>
                    },
                )
            }}
        </details>
    }
}

#[component]
fn StatsRow(s: RunStats, run: RwSignal<Option<Arc<str>>>) -> impl IntoView {
    let tokens = match (s.input_tokens, s.output_tokens) {
        (None, None) => "—".to_string(),
        (i, o) => format!(
            "{} / {}",
            i.map_or("—".into(), |n| n.to_string()),
            o.map_or("—".into(), |n| n.to_string())
        ),
    };
    let id = s.run_id.clone();
    let warned = s.warnings > 0;
    view! {
        <tr>
            <th scope="row">
                <button
                    type="button"
                    class="linkish"
                    title="Show only this run"
                    on:click=move |_| run.set(Some(id.clone()))
                >
                    {truncate(&s.run_id, 14)}
                </button>
            </th>
            <td class="num">{s.events}</td>
            <td class="num">{human_bytes(s.bytes as u64)}</td>
            <td class="num">{ms(s.duration_ms)}</td>
            <td class="num">{s.first_event_ms.map_or("—".into(), ms)}</td>
            <td class="num">{tokens}</td>
            <td class="num" class:warn-count=warned>{s.warnings}</td>
            <td>{s.ended.clone()}</td>
        </tr>
    }
}

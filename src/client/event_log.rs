//! What the event inspector holds: one compact record per event a pipeline delivered (its type,
//! its run, when it happened, its JSON as text, the verifier's warnings), the filter over them,
//! and an index of the records a filter matches that grows with the log instead of being
//! rebuilt on every event. Pure, so it is tested natively; the browser's session (live runs),
//! the thread-history loader and opened recordings all make records the same way.

use std::sync::Arc;

use serde_json::Value;

use crate::protocol::pipeline::Delivered;

/// Live events the session keeps for the inspector (the oldest go first).
pub const EVENT_LOG_LIMIT: usize = 200_000;
/// Stored events the inspector loads of a thread's earlier runs (the newest runs that fit).
pub const HISTORY_LIMIT: usize = 200_000;

/// The largest recording the inspector opens (its bytes are held while it replays).
pub const MAX_RECORDING_BYTES: usize = 64 * 1024 * 1024;

/// One event in the inspector.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRecord {
    /// Unique within its log (the session's live log, or the history).
    pub key: usize,
    /// Its number within its run, from 1 (a stored run's number is its SSE id).
    pub n: u32,
    /// The run it belongs to.
    pub run_id: Arc<str>,
    /// Unix milliseconds when its run was requested (live) or started on the server (history).
    pub run_started_ms: f64,
    /// Unix milliseconds: the event's own `timestamp`, else when it arrived.
    pub at_ms: f64,
    pub type_name: &'static str,
    /// The event as compact JSON (parsed again only when it is looked at).
    pub text: Arc<str>,
    /// What the verifier said about the stream at this event.
    pub warnings: Vec<String>,
}

impl EventRecord {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }
}

/// The run a batch of records belongs to, and the numbering it continues.
#[derive(Debug, Clone)]
pub struct RunMark {
    pub run_id: Arc<str>,
    pub started_ms: f64,
    /// Events of the run recorded so far.
    pub count: u32,
}

impl RunMark {
    pub fn new(run_id: &str, started_ms: f64) -> Self {
        RunMark {
            run_id: Arc::from(run_id),
            started_ms,
            count: 0,
        }
    }
}

/// Records of delivered events, keyed from `*key + 1`. `warnings` is the pipeline's whole list,
/// of which `*seen` were given out already: each event gets those that came with it, and what
/// is left at the end of the batch (a dropped event's) goes on its last event.
/// `now`: Unix milliseconds, for events without a timestamp.
pub fn records(
    delivered: Vec<Delivered>,
    warnings: &[String],
    seen: &mut usize,
    run: &mut RunMark,
    key: &mut usize,
    now: f64,
) -> Vec<EventRecord> {
    let mut out: Vec<EventRecord> = delivered
        .into_iter()
        .map(|d| {
            *key += 1;
            run.count = run.count.saturating_add(1);
            let through = d.warnings_through.clamp(*seen, warnings.len().max(*seen));
            let own = warnings.get(*seen..through).unwrap_or_default().to_vec();
            *seen = through;
            EventRecord {
                key: *key,
                n: run.count,
                run_id: run.run_id.clone(),
                run_started_ms: run.started_ms,
                at_ms: d.event.timestamp.map(|t| t as f64).unwrap_or(now),
                type_name: d.event.type_name(),
                text: Arc::from(d.event.to_json()),
                warnings: own,
            }
        })
        .collect();
    if let Some(last) = out.last_mut() {
        if let Some(rest) = warnings.get(*seen..) {
            last.warnings.extend(rest.iter().cloned());
            *seen = warnings.len();
        }
    }
    out
}

/// The inspector's filter: text (in the type, with spaces for underscores, or anywhere in the
/// event's JSON; case-insensitive), one run, warnings only.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub text: String,
    pub run: Option<Arc<str>>,
    pub warnings_only: bool,
}

/// Characters of filter text looked for (longer text is cut).
pub const FILTER_CHARS: usize = 200;

impl Filter {
    pub fn matches(&self, r: &EventRecord) -> bool {
        if self.warnings_only && r.warnings.is_empty() {
            return false;
        }
        if self.run.as_ref().is_some_and(|run| *run != r.run_id) {
            return false;
        }
        let needle: String = self.text.trim().chars().take(FILTER_CHARS).collect();
        if needle.is_empty() {
            return true;
        }
        contains_ignore_case(r.type_name, &needle.replace(' ', "_"))
            || contains_ignore_case(&r.text, &needle)
    }
}

/// Whether `hay` contains `needle`, ASCII letters compared without case.
pub fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// Where a record is: the history (by index) or the live log (by key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    History(usize),
    Live(usize),
}

/// The records a filter matches, history first, then live; brought up to date by scanning only
/// what was added since the last update (everything again when the filter changes, the history
/// is replaced, or the live log starts over).
#[derive(Debug, Default)]
pub struct FilteredIndex {
    filter: Filter,
    history: Vec<u32>,
    history_scanned: usize,
    /// Keys of matching live records (increasing).
    live: Vec<usize>,
    /// The next live key to look at.
    live_next: usize,
}

impl FilteredIndex {
    /// Bring the index up to date; whether it changed.
    pub fn update(
        &mut self,
        filter: &Filter,
        history: &[EventRecord],
        live: &[EventRecord],
    ) -> bool {
        let mut changed = false;
        if *filter != self.filter {
            *self = FilteredIndex {
                filter: filter.clone(),
                ..FilteredIndex::default()
            };
            changed = true;
        }
        if history.len() < self.history_scanned {
            self.history.clear();
            self.history_scanned = 0;
            changed = true;
        }
        for (i, r) in history.iter().enumerate().skip(self.history_scanned) {
            if self.filter.matches(r) {
                self.history.push(i as u32);
                changed = true;
            }
        }
        self.history_scanned = history.len();
        let first = live.first().map(|r| r.key);
        let last = live.last().map(|r| r.key);
        match (first, last) {
            (Some(first), Some(last)) if last + 1 >= self.live_next => {
                // Records the log dropped from its front.
                let gone = self.live.partition_point(|k| *k < first);
                if gone > 0 {
                    self.live.drain(..gone);
                    changed = true;
                }
                let start = self.live_next.max(first) - first;
                for r in live.iter().skip(start) {
                    if self.filter.matches(r) {
                        self.live.push(r.key);
                        changed = true;
                    }
                }
                self.live_next = last + 1;
            }
            _ => {
                // Empty, or started over with smaller keys.
                if !self.live.is_empty() {
                    changed = true;
                }
                self.live.clear();
                self.live_next = 0;
                for r in live {
                    if self.filter.matches(r) {
                        self.live.push(r.key);
                        changed = true;
                    }
                }
                self.live_next = last.map_or(0, |l| l + 1);
            }
        }
        changed
    }

    pub fn len(&self) -> usize {
        self.history.len() + self.live.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key of the `pos`-th matching record.
    pub fn key_at(&self, pos: usize) -> Option<Key> {
        match self.history.get(pos) {
            Some(i) => Some(Key::History(*i as usize)),
            None => self
                .live
                .get(pos - self.history.len())
                .map(|k| Key::Live(*k)),
        }
    }

    /// The position of a record among the matching ones.
    pub fn position(&self, key: Key) -> Option<usize> {
        match key {
            Key::History(i) => self.history.binary_search(&(i as u32)).ok(),
            Key::Live(k) => self
                .live
                .binary_search(&k)
                .ok()
                .map(|p| p + self.history.len()),
        }
    }
}

/// The record behind a key.
pub fn lookup<'a>(
    key: Key,
    history: &'a [EventRecord],
    live: &'a [EventRecord],
) -> Option<&'a EventRecord> {
    match key {
        Key::History(i) => history.get(i),
        Key::Live(k) => {
            // Live keys increase by one along the log.
            let first = live.first()?.key;
            live.get(k.checked_sub(first)?).filter(|r| r.key == k)
        }
    }
}

/// Every record, history first, then live.
pub fn all<'a>(
    history: &'a [EventRecord],
    live: &'a [EventRecord],
) -> impl Iterator<Item = (Key, &'a EventRecord)> {
    history
        .iter()
        .enumerate()
        .map(|(i, r)| (Key::History(i), r))
        .chain(live.iter().map(|r| (Key::Live(r.key), r)))
}

/// Records as JSON Lines (one event per line), what `agui-studio inspect` and "Open recording"
/// read back.
pub fn to_jsonl<'a>(records: impl Iterator<Item = &'a EventRecord>) -> String {
    let mut out = String::new();
    for r in records {
        out.push_str(&r.text);
        out.push('\n');
    }
    out
}

#[cfg(test)]
#[path = "event_log/tests.rs"]
mod tests;

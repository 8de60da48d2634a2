//! How events are laid out in the `events` table: a row holds one or more consecutive events of
//! one run and is keyed by the number of the last of them. One event is stored as itself (an
//! object, as every row was before), several as a JSON array of them in order, numbered back
//! from the key. The key stays what the table's index holds, so a run's count is still its
//! greatest key and a read from any position still starts at the first key past it, without
//! touching a row's text; no schema change.
//!
//! Why rows of several: the table's key is (run id, seq). A commit writes every page it touched,
//! and with a thousand runs streaming at once each commit touched an index page per run for a
//! few events each (measured with 1,000 interleaved runs: 54 k rows/s and 307 MB of log for
//! 300,000 events a row each, 264 k events/s and 78 MB eight to a row). [`Rows`] gathers each
//! run's consecutive events of a commit; [`decode`] reads a row back.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::value::RawValue;

/// Most events in one row.
pub(super) const ROW_EVENTS: u64 = 64;
/// A row grows past one event only while its text stays within this (a larger event is a row of
/// its own).
pub(super) const ROW_BYTES: usize = 64 * 1024;

/// One row: `span` events of `run_id` from `seq`.
pub(super) struct Row {
    pub run_id: Arc<str>,
    seq: u64,
    span: u64,
    /// The first event, as sent (a row of one is bound without a copy).
    first: Arc<str>,
    /// With more than one: `[first,second,…` (closed by [`Row::text`]).
    more: Option<String>,
}

impl Row {
    fn len(&self) -> usize {
        self.more.as_ref().map_or(self.first.len(), String::len)
    }

    /// The row's key: the number of its last event.
    pub fn key(&self) -> u64 {
        self.seq + (self.span - 1)
    }

    /// What the row's `event` column holds.
    pub fn text(self) -> Arc<str> {
        match self.more {
            None => self.first,
            Some(mut s) => {
                s.push(']');
                s.into()
            }
        }
    }
}

/// A commit's events gathered into rows, each run's consecutive events together, in the order
/// their runs first appeared.
#[derive(Default)]
pub(super) struct Rows {
    rows: Vec<Row>,
    /// The row each run's next event may join.
    open: HashMap<Arc<str>, usize>,
}

impl Rows {
    /// Event `seq` of `run_id`: joins the run's open row when it follows it and fits.
    pub fn push(&mut self, run_id: Arc<str>, seq: u64, json: Arc<str>) {
        // The newest row is its run's open row: a run streaming alone (or most of a batch)
        // finds it without hashing its id.
        let open = match self.rows.last() {
            Some(row) if Arc::ptr_eq(&row.run_id, &run_id) => Some(self.rows.len() - 1),
            _ => self.open.get(&run_id).copied(),
        };
        if let Some(i) = open {
            let row = &mut self.rows[i];
            if row.seq.checked_add(row.span) == Some(seq)
                && row.span < ROW_EVENTS
                && row.len() + json.len() + 2 <= ROW_BYTES
            {
                let more = row.more.get_or_insert_with(|| {
                    let mut s = String::with_capacity(ROW_BYTES.min(row.first.len() * 16));
                    s.push('[');
                    s.push_str(&row.first);
                    s
                });
                more.push(',');
                more.push_str(&json);
                row.span += 1;
                return;
            }
        }
        self.open.insert(run_id.clone(), self.rows.len());
        self.rows.push(Row {
            run_id,
            seq,
            span: 1,
            first: json,
            more: None,
        });
    }

    /// Whether an event of `run_id` waits here (a run id started again must see its earlier
    /// events written before they are deleted).
    pub fn has_run(&self, run_id: &str) -> bool {
        self.open.contains_key(run_id)
    }

    /// The rows, in order; empties this.
    pub fn take(&mut self) -> Vec<Row> {
        self.open.clear();
        std::mem::take(&mut self.rows)
    }
}

/// A stored row read back from its key (the number of its last event) and text: its events
/// numbered after `after`, at most `room` of them, appended to `out` with their numbers (the
/// others are not copied out of the row). An array that is empty or holds more events than
/// there are numbers before its key (a damaged row) is an error, not a guess.
pub(super) fn decode_into(
    last: u64,
    text: String,
    after: u64,
    room: usize,
    out: &mut Vec<(u64, String)>,
) -> Result<(), String> {
    #[cfg(test)]
    tests::ROWS_DECODED.with(|n| n.set(n.get() + 1));
    if !text.starts_with('[') {
        if last > after && room > 0 {
            out.push((last, text));
        }
        return Ok(());
    }
    let items: Vec<&RawValue> = serde_json::from_str(&text)
        .map_err(|e| format!("events row {last} is not an array of events: {e}"))?;
    let n = items.len() as u64;
    if n == 0 || n > last {
        return Err(format!("events row {last} holds {n} events"));
    }
    out.extend(
        items
            .into_iter()
            .zip(last - n + 1..)
            .filter(|(_, seq)| *seq > after)
            .take(room)
            .map(|(e, seq)| (seq, e.get().to_string())),
    );
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Every event of a row.
    fn decode(last: u64, text: String) -> Result<Vec<(u64, String)>, String> {
        let mut out = Vec::new();
        decode_into(last, text, 0, usize::MAX, &mut out)?;
        Ok(out)
    }

    thread_local! {
        /// Rows decoded on this thread (a test's runtime decodes on its own thread).
        pub(super) static ROWS_DECODED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    fn texts(rows: Vec<Row>) -> Vec<(String, u64, u64, String)> {
        rows.into_iter()
            .map(|r| (r.run_id.to_string(), r.seq, r.key(), r.text().to_string()))
            .collect()
    }

    fn ev(n: u64) -> Arc<str> {
        format!("{{\"n\":{n}}}").into()
    }

    #[test]
    fn interleaved_runs_become_a_row_each_and_read_back_in_order() {
        let mut rows = Rows::default();
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        for n in 1..=3 {
            rows.push(a.clone(), n, ev(n));
            rows.push(b.clone(), n + 10, ev(n + 10));
        }
        let out = texts(rows.take());
        assert_eq!(
            out,
            vec![
                ("a".into(), 1, 3, r#"[{"n":1},{"n":2},{"n":3}]"#.into()),
                ("b".into(), 11, 13, r#"[{"n":11},{"n":12},{"n":13}]"#.into()),
            ]
        );
        let back = decode(3, out[0].3.clone()).unwrap();
        assert_eq!(
            back,
            vec![
                (1, r#"{"n":1}"#.to_string()),
                (2, r#"{"n":2}"#.to_string()),
                (3, r#"{"n":3}"#.to_string())
            ]
        );
        assert!(!rows.has_run("a") && rows.take().is_empty());
    }

    #[test]
    fn a_gap_a_full_row_or_a_large_event_starts_a_new_row() {
        let mut rows = Rows::default();
        let a: Arc<str> = "a".into();
        // A gap in the numbers.
        rows.push(a.clone(), 1, ev(1));
        rows.push(a.clone(), 3, ev(3));
        // ROW_EVENTS in one row, the next in another.
        for n in 4..4 + ROW_EVENTS + 1 {
            rows.push(a.clone(), n, ev(n));
        }
        // An event that would take a row past ROW_BYTES.
        let big: Arc<str> = format!("\"{}\"", "x".repeat(ROW_BYTES)).into();
        let next = 4 + ROW_EVENTS + 1;
        rows.push(a.clone(), next, big.clone());
        rows.push(a.clone(), next + 1, ev(next + 1));
        let spans: Vec<(u64, u64)> = rows.take().iter().map(|r| (r.seq, r.span)).collect();
        assert_eq!(
            spans,
            vec![
                (1, 1),
                (3, ROW_EVENTS),
                (3 + ROW_EVENTS, 2),
                (next, 1),
                (next + 1, 1)
            ]
        );
        // A row of one is the event itself, not a copy.
        let mut rows = Rows::default();
        rows.push(a.clone(), 1, big.clone());
        assert!(Arc::ptr_eq(&rows.take().pop().unwrap().text(), &big));
    }

    #[test]
    fn a_damaged_row_is_an_error() {
        // More events than numbers up to the key, none, or not an array.
        assert!(decode(1, r#"[{"n":1},{"n":2}]"#.into()).is_err());
        assert!(decode(5, "[]".into()).is_err());
        assert!(decode(5, "[".into()).is_err());
        assert_eq!(decode(7, "{}".into()).unwrap(), vec![(7, "{}".into())]);
        assert_eq!(
            decode(7, "[{},[]]".into()).unwrap(),
            vec![(6, "{}".into()), (7, "[]".into())]
        );
    }

    /// A fresh store in a directory of its own (named by `tag`) with runs `runs` started, each
    /// on thread `t-{run}`.
    pub(in crate::server::store) async fn store_with_runs(
        tag: &str,
        runs: &[&str],
    ) -> (crate::server::store::Store, std::path::PathBuf) {
        use crate::protocol::types::RunAgentInput;
        use crate::server::store::Store;

        let (store, dir, _) = crate::server::store::testing::fresh_store(tag).await;
        for run in runs {
            let input = RunAgentInput::new(format!("t-{run}"), run.to_string());
            let op = Store::run_started_op(&input, &input.messages, "demo", "", 1);
            store.run_started(op).await;
        }
        (store, dir)
    }

    /// A read of `limit` events decodes the rows that hold them, not `limit` rows: a reader
    /// behind a long run took 256 events from 256 rows of 64 (16,384 events decoded per batch).
    #[tokio::test(flavor = "current_thread")]
    async fn a_read_decodes_only_the_rows_it_returns() {
        let (store, dir) = store_with_runs("rows-read", &["r"]).await;
        let n = ROW_EVENTS * 40;
        for seq in 1..=n {
            store.event("r".into(), seq, ev(seq), None).await;
        }
        store.flush().await;
        for (after, limit) in [(0, 256), (1000, 256), (5, 1), (n - 10, 256)] {
            let before = ROWS_DECODED.with(|c| c.get());
            let got = store.events_after("r", after, limit).await.unwrap();
            let decoded = ROWS_DECODED.with(|c| c.get()) - before;
            let want = limit.min(n - after);
            assert_eq!(got.len() as u64, want, "after {after} limit {limit}");
            assert_eq!(got[0].0, after + 1);
            let most = (want as usize).div_ceil(ROW_EVENTS as usize) + 1;
            assert!(
                decoded <= most,
                "after {after} limit {limit}: {decoded} rows decoded, at most {most} hold them"
            );
        }
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Three runs' events interleaved in one commit, one of them larger than a row may grow:
    /// every position and limit reads back exactly the events after it, and each run's count is
    /// its last event's number.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn grouped_rows_read_back_from_every_position() {
        let runs = ["r1", "r2", "r3"];
        let (store, dir) = store_with_runs("rows", &runs).await;
        let n = ROW_EVENTS * 2 + 5;
        let text = |run: &str, seq: u64| -> String {
            let pad = if seq == 70 {
                "x".repeat(ROW_BYTES)
            } else {
                String::new()
            };
            format!(r#"{{"run":"{run}","seq":{seq},"pad":"{pad}"}}"#)
        };
        for seq in 1..=n {
            for run in runs {
                store
                    .event(run.into(), seq, text(run, seq).into(), None)
                    .await;
            }
        }
        store.flush().await;
        for run in runs {
            assert_eq!(store.run(run).await.unwrap().unwrap().event_count, n);
            for after in 0..=n {
                for limit in [1, 3, 100, 10_000] {
                    let got = store.events_after(run, after, limit).await.unwrap();
                    let want: Vec<(u64, String)> = (after + 1..=n)
                        .take(limit as usize)
                        .map(|seq| (seq, text(run, seq)))
                        .collect();
                    assert_eq!(got, want, "{run} after {after} limit {limit}");
                }
            }
        }
        // Fewer rows than events: they were grouped.
        let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM events")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert!(
            rows <= (n as i64) * 3 / 4,
            "{rows} rows for {} events",
            n * 3
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

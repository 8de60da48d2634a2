use super::*;
use crate::protocol::pipeline::{Pipeline, PipelineOptions};

fn log(sse: &str, mark: &mut RunMark, key: &mut usize) -> Vec<EventRecord> {
    let mut p = Pipeline::new(PipelineOptions::default());
    let mut d = p.push_bytes(sse.as_bytes());
    d.extend(p.finish());
    records(d, &p.warnings, &mut 0, mark, key, 1_000.0)
}

fn sse(events: &[&str]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

fn run(id: &str) -> String {
    sse(&[
        &format!(r#"{{"type":"RUN_STARTED","threadId":"t","runId":"{id}","timestamp":5000}}"#),
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"Hello Weather"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        &format!(r#"{{"type":"RUN_FINISHED","threadId":"t","runId":"{id}"}}"#),
    ])
}

#[test]
fn records_carry_run_number_time_and_compact_json() {
    let (mut mark, mut key) = (RunMark::new("r1", 4_000.0), 0);
    let recs = log(&run("r1"), &mut mark, &mut key);
    assert_eq!(recs.len(), 5);
    assert_eq!(recs[0].type_name, "RUN_STARTED");
    assert_eq!(recs[0].at_ms, 5_000.0, "the event's own timestamp");
    assert_eq!(recs[1].at_ms, 1_000.0, "else the arrival time");
    assert_eq!((recs[0].n, recs[4].n, recs[4].key), (1, 5, 5));
    assert_eq!(&*recs[2].run_id, "r1");
    assert_eq!(recs[2].json()["delta"], "Hello Weather");
    assert!(!recs[2].text.contains('\n'));
}

#[test]
fn each_warning_goes_on_the_event_that_raised_it() {
    let (mut mark, mut key) = (RunMark::new("r", 0.0), 0);
    // One batch: an unknown property on the second event, an unknown event type (dropped)
    // after the last.
    let recs = log(
        &sse(&[
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"STEP_STARTED","stepName":"s","oddField":1}"#,
            r#"{"type":"STEP_FINISHED","stepName":"s"}"#,
            r#"{"type":"NOT_AN_EVENT"}"#,
        ]),
        &mut mark,
        &mut key,
    );
    let warned: Vec<(&str, usize)> = recs
        .iter()
        .map(|r| (r.type_name, r.warnings.len()))
        .collect();
    assert_eq!(warned[0], ("RUN_STARTED", 0));
    assert_eq!(warned[1], ("STEP_STARTED", 1), "{:?}", recs[1].warnings);
    assert!(recs[1].warnings[0].contains("oddField"));
    // The dropped event's warning (and the truncated end's) go on the batch's last event.
    assert_eq!(warned[2].0, "STEP_FINISHED");
    assert!(
        recs[2].warnings.iter().any(|w| w.contains("NOT_AN_EVENT")),
        "{:?}",
        recs[2].warnings
    );
}

#[test]
fn filter_by_type_text_run_and_warnings() {
    let (mut mark, mut key) = (RunMark::new("r1", 0.0), 0);
    let mut recs = log(&run("r1"), &mut mark, &mut key);
    let mut mark2 = RunMark::new("r2", 0.0);
    recs.extend(log(&run("r2"), &mut mark2, &mut key));
    recs[3].warnings.push("odd".into());
    let count = |f: Filter| recs.iter().filter(|r| f.matches(r)).count();
    assert_eq!(count(Filter::default()), 10);
    let text = |t: &str| Filter {
        text: t.into(),
        ..Filter::default()
    };
    assert_eq!(
        count(text("text message")),
        6,
        "type, spaces for underscores"
    );
    assert_eq!(count(text("weather")), 2, "anywhere in the JSON, any case");
    assert_eq!(count(text("  ")), 10);
    let run2 = Filter {
        run: Some(Arc::from("r2")),
        ..Filter::default()
    };
    assert_eq!(count(run2), 5);
    let warn = Filter {
        warnings_only: true,
        ..Filter::default()
    };
    assert_eq!(count(warn), 1);
    // A filter text of any size costs at most FILTER_CHARS characters per record.
    assert_eq!(count(text(&"x".repeat(1_000_000))), 0);
}

#[test]
fn the_index_grows_with_the_log_and_follows_its_trimming() {
    let (mut mark, mut key) = (RunMark::new("r1", 0.0), 0);
    let history = log(&run("h"), &mut RunMark::new("h", 0.0), &mut 0);
    let mut live = log(&run("r1"), &mut mark, &mut key);
    let f = Filter {
        text: "TEXT_MESSAGE".into(),
        ..Filter::default()
    };
    let mut idx = FilteredIndex::default();
    assert!(idx.update(&f, &[], &live));
    assert_eq!(idx.len(), 3);
    assert!(!idx.update(&f, &[], &live), "nothing new");
    live.extend(log(&run("r2"), &mut RunMark::new("r2", 0.0), &mut key));
    assert!(idx.update(&f, &[], &live));
    assert_eq!(idx.len(), 6);
    // History arrives: it comes first.
    assert!(idx.update(&f, &history, &live));
    assert_eq!(idx.len(), 9);
    assert_eq!(idx.key_at(0), Some(Key::History(1)));
    assert_eq!(idx.key_at(3), Some(Key::Live(2)));
    assert_eq!(idx.position(Key::Live(2)), Some(3));
    assert_eq!(
        lookup(Key::Live(2), &history, &live).unwrap().type_name,
        "TEXT_MESSAGE_START"
    );
    // The live log drops its oldest run.
    live.drain(..5);
    assert!(idx.update(&f, &history, &live));
    assert_eq!(idx.len(), 6);
    assert_eq!(lookup(Key::Live(2), &history, &live), None);
    // A new thread starts the live log over.
    live.clear();
    assert!(idx.update(&f, &history, &live));
    assert_eq!(idx.len(), 3);
    // A new filter scans again.
    assert!(idx.update(&Filter::default(), &history, &live));
    assert_eq!(idx.len(), 5);
}

#[test]
fn jsonl_reads_back_as_the_same_events() {
    let (mut mark, mut key) = (RunMark::new("r1", 0.0), 0);
    let recs = log(&run("r1"), &mut mark, &mut key);
    let text = to_jsonl(recs.iter());
    assert_eq!(text.lines().count(), 5);
    let mut again = RunMark::new("r1", 0.0);
    let parsed = crate::protocol::inspect::parse_recording(text.into_bytes()).unwrap();
    let crate::protocol::inspect::Recording::Events(events) = parsed.recording else {
        panic!("JSON Lines expected");
    };
    let mut p = Pipeline::new(PipelineOptions::default());
    let d: Vec<_> = events
        .into_iter()
        .flat_map(|e| p.push_value(None, e))
        .collect();
    let back = records(d, &[], &mut 0, &mut again, &mut 0, 0.0);
    assert_eq!(
        back.iter().map(|r| &r.text).collect::<Vec<_>>(),
        recs.iter().map(|r| &r.text).collect::<Vec<_>>()
    );
}

#[test]
fn case_insensitive_search_without_allocating() {
    assert!(contains_ignore_case("TOOL_CALL_ARGS", "call_a"));
    assert!(!contains_ignore_case("ab", "abc"));
    assert!(contains_ignore_case("x", ""));
}

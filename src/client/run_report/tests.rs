use super::*;
use crate::client::event_log::{records, RunMark};
use crate::protocol::pipeline::{Pipeline, PipelineOptions};

fn recs(run_id: &str, started: f64, events: &[String]) -> Vec<EventRecord> {
    let mut p = Pipeline::new(PipelineOptions::default());
    let mut d = Vec::new();
    for e in events {
        d.extend(p.push_value(None, serde_json::from_str(e).unwrap()));
    }
    d.extend(p.finish());
    records(
        d,
        &p.warnings,
        &mut 0,
        &mut RunMark::new(run_id, started),
        &mut 0,
        0.0,
    )
}

fn at(t: u64, e: &str) -> String {
    let mut v: Value = serde_json::from_str(e).unwrap();
    v["timestamp"] = t.into();
    v.to_string()
}

fn sample() -> Vec<EventRecord> {
    recs(
        "r",
        900.0,
        &[
            at(1000, r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#),
            at(1010, r#"{"type":"STEP_STARTED","stepName":"plan"}"#),
            at(1020, r#"{"type":"REASONING_START","messageId":"th"}"#),
            at(1050, r#"{"type":"REASONING_END","messageId":"th"}"#),
            at(
                1060,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
            ),
            at(
                1070,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}"#,
            ),
            at(1100, r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#),
            at(
                1110,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"search"}"#,
            ),
            at(1120, r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#),
            at(
                1130,
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{"n":1}}"#,
            ),
            at(
                1150,
                r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"PLAN","patch":[{"op":"replace","path":"/n","value":2}]}"#,
            ),
            at(1160, r#"{"type":"STEP_FINISHED","stepName":"plan"}"#),
            at(
                1200,
                r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"},"usage":[{"inputTokens":10,"outputTokens":4},{"inputTokens":5}]}"#,
            ),
        ],
    )
}

#[test]
fn a_run_summary_counts_what_a_debugger_asks_first() {
    let r = sample();
    let stats = run_stats(r.iter());
    assert_eq!(stats.len(), 1);
    let s = &stats[0];
    assert_eq!(s.events, 13);
    assert_eq!(s.bytes, r.iter().map(|r| r.text.len()).sum::<usize>());
    assert_eq!(s.duration_ms, 200.0);
    assert_eq!(s.first_event_ms, Some(100.0));
    assert_eq!((s.input_tokens, s.output_tokens), (Some(15), Some(4)));
    assert_eq!(s.ended, "finished (success)");
    assert_eq!(s.warnings, 0);
}

#[test]
fn runs_are_summarised_apart_in_order() {
    let mut all = recs(
        "b",
        0.0,
        &[r#"{"type":"RUN_STARTED","threadId":"t","runId":"b"}"#.to_string()],
    );
    all.extend(sample());
    let stats = run_stats(all.iter());
    assert_eq!(
        stats.iter().map(|s| &*s.run_id).collect::<Vec<_>>(),
        ["b", "r"]
    );
    assert_eq!(stats[0].ended, "open");
    assert_eq!(stats[0].first_event_ms, None, "no request time known");
}

#[test]
fn the_timeline_has_a_bar_per_message_call_reasoning_step_and_activity() {
    let r = sample();
    let (len, bars) = timeline(r.iter().map(|r| (Key::Live(r.key), r)));
    assert_eq!(len, 200.0);
    let show: Vec<(BarKind, &str, f64, f64, bool)> = bars
        .iter()
        .map(|b| (b.kind, b.label.as_str(), b.start_ms, b.end_ms, b.open))
        .collect();
    assert_eq!(
        show,
        [
            (BarKind::Step, "plan", 10.0, 160.0, false),
            (BarKind::Reasoning, "reasoning", 20.0, 50.0, false),
            (BarKind::Message, "assistant message", 60.0, 100.0, false),
            // No result: the call waits until the run's end.
            (BarKind::ToolCall, "search", 110.0, 200.0, true),
            (BarKind::Activity, "PLAN", 130.0, 150.0, false),
        ]
    );
    assert_eq!(
        bars[2].key,
        Key::Live(5),
        "points at the event that opened it"
    );
}

#[test]
fn the_timeline_is_bounded() {
    let mut events = vec![r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_string()];
    for i in 0..(MAX_BARS + 50) {
        events.push(format!(r#"{{"type":"STEP_STARTED","stepName":"s{i}"}}"#));
    }
    let r = recs("r", 0.0, &events);
    let (_, bars) = timeline(r.iter().map(|r| (Key::Live(r.key), r)));
    assert_eq!(bars.len(), MAX_BARS);
}

//! Tests of the upstream meter: exactly the limit passes, one more byte or event does not.

use super::*;

fn code(e: AgentError) -> String {
    match e {
        AgentError::Failed { code, .. } => code.to_string(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_limit_itself_passes_and_one_more_fails() {
    let limits = UpstreamLimits {
        max_bytes: 10,
        max_events: 2,
    };
    let mut m = UpstreamMeter::new(limits, "the model server at x");
    m.bytes(4).unwrap();
    m.bytes(6).unwrap();
    assert_eq!(m.bytes_left(), 0);
    let e = m.bytes(1).unwrap_err();
    assert_eq!(code(e.clone()), RunErrorCode::UpstreamLimit.as_str());
    assert!(format!("{e:?}").contains("--max-upstream-bytes"));
    m.events(2).unwrap();
    assert_eq!(
        code(m.events(1).unwrap_err()),
        RunErrorCode::UpstreamLimit.as_str()
    );
}

#[test]
fn counts_saturate_instead_of_wrapping() {
    let mut m = UpstreamMeter::new(
        UpstreamLimits {
            max_bytes: u64::MAX,
            max_events: u64::MAX,
        },
        "x",
    );
    m.bytes(usize::MAX).unwrap();
    m.bytes(usize::MAX).unwrap();
    m.events(usize::MAX).unwrap();
    m.events(usize::MAX).unwrap();
}

#[test]
fn bytes_from_another_peer_share_the_budget() {
    let limits = UpstreamLimits {
        max_bytes: 10,
        max_events: 2,
    };
    let mut m = UpstreamMeter::new(limits, "the model server at x");
    m.bytes(6).unwrap();
    m.bytes_from(4, "the MCP server 's'").unwrap();
    let e = m.bytes_from(1, "the MCP server 's'").unwrap_err();
    let text = format!("{e:?}");
    assert!(
        text.contains("the MCP server 's' answered with 1 bytes"),
        "{text}"
    );
    assert_eq!(code(e), RunErrorCode::UpstreamLimit.as_str());
    // The model's next bytes are over the shared budget too.
    assert!(m.bytes(1).is_err());
}

use serde_json::json;

use super::*;
use crate::protocol::types::ResumeStatus;

fn interrupt(id: &str, expires_at: Option<&str>) -> Interrupt {
    serde_json::from_value(json!({"id": id, "reason": "confirmation", "expiresAt": expires_at}))
        .unwrap()
}

fn answer(id: &str) -> ResumeEntry {
    ResumeEntry {
        interrupt_id: id.into(),
        status: ResumeStatus::Resolved,
        payload: None,
        metadata: None,
    }
}

const NOW: i64 = 1_800_000_000_000;

#[test]
fn one_resume_answers_every_open_interrupt_once_and_nothing_else() {
    let open = [interrupt("a", None), interrupt("b", None)];
    assert_eq!(
        check_resume(&open, &[answer("b"), answer("a")], NOW),
        Ok(())
    );
    assert_eq!(
        check_resume(&open, &[answer("a")], NOW),
        Err(ResumeError::Unanswered("b".into()))
    );
    assert_eq!(
        check_resume(&open, &[answer("a"), answer("b"), answer("c")], NOW),
        Err(ResumeError::Unknown("c".into()))
    );
    assert_eq!(
        check_resume(&open, &[answer("a"), answer("a"), answer("b")], NOW),
        Err(ResumeError::Duplicate("a".into()))
    );
    assert_eq!(
        check_resume(&[], &[answer("a")], NOW),
        Err(ResumeError::Unknown("a".into()))
    );
    assert_eq!(check_resume(&[], &[], NOW), Ok(()));
    assert_eq!(
        check_resume(&open, &[], NOW),
        Err(ResumeError::Unanswered("a".into()))
    );
}

#[test]
fn an_expired_interrupt_cannot_be_answered() {
    let past = "2020-01-01T00:00:00Z";
    let future = "2100-01-01T00:00:00.5+02:00";
    let open = [interrupt("a", Some(future)), interrupt("b", Some(past))];
    let err = check_resume(&open, &[answer("a"), answer("b")], NOW).unwrap_err();
    assert!(err.is_expiry(), "{err}");
    assert_eq!(
        err,
        ResumeError::Expired {
            id: "b".into(),
            expires_at: past.into()
        }
    );
    // A shape error is reported first: it is the request that is wrong.
    assert!(!check_resume(&open, &[answer("a")], NOW)
        .unwrap_err()
        .is_expiry());
    let open = [
        interrupt("a", Some(future)),
        interrupt("c", Some("next tuesday")),
    ];
    assert_eq!(
        check_resume(&open, &[answer("a"), answer("c")], NOW),
        Ok(())
    );
}

#[test]
fn rfc3339_times_read_to_the_millisecond() {
    assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:01.25Z"), Some(1250));
    assert_eq!(parse_rfc3339_ms("1970-01-01T01:00:00+01:00"), Some(0));
    assert_eq!(parse_rfc3339_ms("1969-12-31T23:00:00-01:00"), Some(0));
    assert_eq!(
        parse_rfc3339_ms("2000-02-29T00:00:00Z"),
        Some(951_782_400_000)
    );
    assert_eq!(
        parse_rfc3339_ms("2026-11-24T23:10:00.123456789Z"),
        Some(1_795_561_800_123)
    );
    for bad in [
        "",
        "2026-11-24",
        "2026-13-01T00:00:00Z",
        "2026-02-29T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T00:00:00",
        "2026-01-01T00:00:00+0100",
        "2026-01-01T00:00:00.Z",
        "2026-01-01T00:00:00Zjunk",
        "２０２６-01-01T00:00:00Z",
        "+2026-01-01T00:00:00Z",
    ] {
        assert_eq!(parse_rfc3339_ms(bad), None, "{bad}");
    }
}

#[test]
fn formatted_times_read_back() {
    for ms in [
        0,
        951_782_400_000,
        1_795_561_800_123,
        4_102_444_800_999,
        -86_400_001,
    ] {
        let text = format_rfc3339_ms(ms);
        assert_eq!(parse_rfc3339_ms(&text), Some(ms), "{text}");
    }
    assert_eq!(format_rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
}

#[test]
fn long_ids_are_cut_in_the_message() {
    let long = "x".repeat(10_000);
    let err = check_resume(&[], &[answer(&long)], NOW).unwrap_err();
    assert!(err.to_string().len() < 200, "{err}");
}

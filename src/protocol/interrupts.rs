//! The rules of AG-UI 1.1 for answering interrupts, checked the same way by the server (on a
//! run's `RunAgentInput.resume`) and by the client (before it sends one): one `resume` answers
//! every open interrupt of the thread, each once, and nothing else; an interrupt whose
//! `expiresAt` has passed can no longer be answered.
//!
//! `expiresAt` is ISO 8601 by convention; this reads the RFC 3339 form every SDK writes
//! (`2026-01-16T14:30:00Z`, `…T14:30:00.250+02:00`). A value it cannot read is treated as no
//! expiry: the interrupt stays answerable rather than failing on a format we do not know.

use std::collections::HashSet;

use crate::protocol::types::{Interrupt, ResumeEntry};

/// Why a `resume` does not answer the open interrupts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    #[error("resume answers interrupt '{0}' twice")]
    Duplicate(String),
    #[error("resume answers interrupt '{0}', which is not open on this thread")]
    Unknown(String),
    #[error("resume leaves open interrupt '{0}' unanswered: one resume must answer every open interrupt")]
    Unanswered(String),
    #[error("interrupt '{id}' expired at {expires_at}; it can no longer be answered")]
    Expired { id: String, expires_at: String },
}

impl ResumeError {
    /// An expired interrupt is refused inside the run (`RUN_ERROR`); the others are a
    /// malformed request, refused before any stream.
    pub fn is_expiry(&self) -> bool {
        matches!(self, ResumeError::Expired { .. })
    }
}

/// Check `resume` against the `open` interrupts at `now_ms` (Unix milliseconds). The shape
/// errors (a duplicate, an unknown id, an open interrupt left out) come first, then expiry.
pub fn check_resume(
    open: &[Interrupt],
    resume: &[ResumeEntry],
    now_ms: i64,
) -> Result<(), ResumeError> {
    let open_ids: HashSet<&str> = open.iter().map(|i| i.id.as_str()).collect();
    let mut answered = HashSet::new();
    for e in resume {
        let id = e.interrupt_id.as_str();
        if !answered.insert(id) {
            return Err(ResumeError::Duplicate(shown(id)));
        }
        if !open_ids.contains(id) {
            return Err(ResumeError::Unknown(shown(id)));
        }
    }
    if let Some(left) = open.iter().find(|i| !answered.contains(i.id.as_str())) {
        return Err(ResumeError::Unanswered(shown(&left.id)));
    }
    match open.iter().find(|i| is_expired(i, now_ms)) {
        Some(i) => Err(ResumeError::Expired {
            id: shown(&i.id),
            expires_at: shown(i.expires_at.as_deref().unwrap_or_default()),
        }),
        None => Ok(()),
    }
}

/// Longest id shown in an error: ids are the client's, and the message is an answer.
const SHOWN: usize = 80;

fn shown(id: &str) -> String {
    match id.char_indices().nth(SHOWN) {
        None => id.to_string(),
        Some((at, _)) => format!("{}…", &id[..at]),
    }
}

/// Whether `interrupt` has an `expiresAt` at or before `now_ms`.
pub fn is_expired(interrupt: &Interrupt, now_ms: i64) -> bool {
    interrupt
        .expires_at
        .as_deref()
        .and_then(parse_rfc3339_ms)
        .is_some_and(|at| at <= now_ms)
}

/// An RFC 3339 date-time as Unix milliseconds (None: not one).
pub fn parse_rfc3339_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b.len() > 40 || !s.is_ascii() {
        return None;
    }
    let num = |from, to| num_in(s, from, to);
    if b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hour, minute, second) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&month)
        || !(1..=days_in(year, month)).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut rest = &s[19..];
    let mut millis = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let first3: String = frac[..digits]
            .chars()
            .chain("000".chars())
            .take(3)
            .collect();
        millis = first3.parse::<i64>().ok()?;
        rest = &frac[digits..];
    }
    let offset_min = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            if rest.len() != 6 || rest.as_bytes()[3] != b':' {
                return None;
            }
            let (h, m) = (num_in(rest, 1, 3)?, num_in(rest, 4, 6)?);
            if h > 23 || m > 59 {
                return None;
            }
            sign * (h * 60 + m)
        }
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second.min(59) - offset_min * 60;
    Some(secs * 1000 + millis)
}

/// Unix milliseconds as RFC 3339 UTC with milliseconds (`2026-01-16T14:30:00.000Z`).
pub fn format_rfc3339_ms(ms: i64) -> String {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, m, d) = civil_from_days(days);
    let (h, min, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z")
}

/// The date of a day number since 1970-01-01 (the inverse of [`days_from_civil`]).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn num_in(s: &str, from: usize, to: usize) -> Option<i64> {
    let part = s.get(from..to)?;
    part.bytes()
        .all(|c| c.is_ascii_digit())
        .then(|| part.parse().ok())?
}

fn days_in(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests;

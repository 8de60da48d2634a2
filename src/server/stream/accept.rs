//! Which transport a request's `Accept` asks for: SSE (the default) or the protobuf binding.
//!
//! Media ranges are weighed as RFC 9110 §12.5.1 says: each type takes the quality of the most
//! specific range that matches it (`type/subtype` over `type/*` over `*/*`), `q=0` refuses it.
//! Protobuf is chosen only when it is acceptable and weighs more than `text/event-stream`, so a
//! wildcard alone, a tie, or no `Accept` at all keeps SSE.

use axum::http::{header, HeaderMap};

use crate::protocol::proto::MEDIA_TYPE as PROTO;

/// The event stream's encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Sse,
    Proto,
}

/// How many media ranges of `Accept` are weighed (a header listing more is read up to this).
const MAX_RANGES: usize = 64;

/// The transport the request's `Accept` headers prefer.
pub fn negotiate(headers: &HeaderMap) -> Transport {
    let ranges: Vec<(&str, f32)> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .take(MAX_RANGES)
        .filter_map(range)
        .collect();
    let proto = quality(&ranges, PROTO);
    let sse = quality(&ranges, "text/event-stream");
    if proto > 0.0 && proto > sse {
        Transport::Proto
    } else {
        Transport::Sse
    }
}

/// `type/subtype;params` → (lowercased essence, q). A range without a valid q weighs 1.
fn range(text: &str) -> Option<(&str, f32)> {
    let mut parts = text.split(';');
    let essence = parts.next()?.trim();
    if !essence.contains('/') {
        return None;
    }
    let mut q = 1.0;
    for p in parts {
        if let Some((k, v)) = p.split_once('=') {
            if k.trim().eq_ignore_ascii_case("q") {
                q = v
                    .trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|q| (0.0..=1.0).contains(q))?;
            }
        }
    }
    Some((essence, q))
}

/// The quality `ranges` give `media` (0 when none matches).
fn quality(ranges: &[(&str, f32)], media: &str) -> f32 {
    let (ty, _) = media.split_once('/').unwrap_or((media, ""));
    let mut best: Option<(u8, f32)> = None;
    for &(range, q) in ranges {
        let specificity = if range.eq_ignore_ascii_case(media) {
            3
        } else if range.eq_ignore_ascii_case(&format!("{ty}/*")) {
            2
        } else if range == "*/*" {
            1
        } else {
            continue;
        };
        // The most specific match decides; among equally specific ones, the best q.
        if best.is_none_or(|(s, bq)| specificity > s || (specificity == s && q > bq)) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn pick(accept: &[&str]) -> Transport {
        let mut h = HeaderMap::new();
        for a in accept {
            h.append(header::ACCEPT, HeaderValue::from_str(a).unwrap());
        }
        negotiate(&h)
    }

    #[test]
    fn protobuf_only_when_preferred() {
        use Transport::*;
        for (accept, want) in [
            (&[][..], Sse),
            (&["application/vnd.ag-ui.event+proto"][..], Proto),
            (&["Application/VND.AG-UI.Event+Proto"][..], Proto),
            (&["text/event-stream"][..], Sse),
            (&["*/*"][..], Sse),
            (
                &["text/event-stream, application/vnd.ag-ui.event+proto"][..],
                Sse,
            ),
            (
                &["application/vnd.ag-ui.event+proto, text/event-stream;q=0.5"][..],
                Proto,
            ),
            (
                &["text/event-stream;q=0.9, application/vnd.ag-ui.event+proto"][..],
                Proto,
            ),
            (
                &["application/vnd.ag-ui.event+proto;q=0.4, text/event-stream;q=0.5"][..],
                Sse,
            ),
            (&["application/vnd.ag-ui.event+proto;q=0, */*"][..], Sse),
            (&["application/*, text/*;q=0.1"][..], Proto),
            (
                &["application/vnd.ag-ui.event+proto;q=0.1, */*;q=0.05"][..],
                Proto,
            ),
            (
                &["application/json", "application/vnd.ag-ui.event+proto"][..],
                Proto,
            ),
            (&["application/vnd.ag-ui.event+proto;q=bogus"][..], Sse),
            (&["application/vnd.ag-ui.event+proto;q=2"][..], Sse),
            (&["application/vnd.ag-ui.event+protobuf"][..], Sse),
        ] {
            assert_eq!(pick(accept), want, "{accept:?}");
        }
    }

    #[test]
    fn a_long_accept_is_read_up_to_a_bound() {
        let long = format!("{}application/vnd.ag-ui.event+proto", "x/y, ".repeat(1000));
        assert_eq!(pick(&[&long]), Transport::Sse);
    }
}

//! Tests of the `sse` module.
use super::*;
use proptest::prelude::*;

fn frame(data: &str) -> SseFrame {
    SseFrame {
        data: data.to_owned(),
        ..SseFrame::default()
    }
}

fn decode_all(bytes: &[u8]) -> Vec<SseFrame> {
    let mut dec = Decoder::new();
    let mut frames = dec.push(bytes).unwrap();
    frames.extend(dec.finish().unwrap());
    frames
}

fn decode_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<SseFrame> {
    let mut dec = Decoder::new();
    let mut frames = Vec::new();
    for chunk in chunks {
        frames.extend(dec.push(chunk).unwrap());
    }
    frames.extend(dec.finish().unwrap());
    frames
}

/// Decodes with every possible single cut and with one byte per push; all must agree with
/// the unsplit decode, which is returned.
fn decode_every_split(bytes: &[u8]) -> Vec<SseFrame> {
    let whole = decode_all(bytes);
    for cut in 0..=bytes.len() {
        let (a, b) = bytes.split_at(cut);
        assert_eq!(decode_chunks([a, b]), whole, "cut at {cut}");
    }
    assert_eq!(decode_chunks(bytes.chunks(1)), whole, "byte by byte");
    whole
}

#[test]
fn encoders_frame_as_documented() {
    assert_eq!(encode_data(r#"{"a":1}"#), "data: {\"a\":1}\n\n");
    assert_eq!(
        encode_data("a\nb\r\nc\rd"),
        "data: a\ndata: b\ndata: c\ndata: d\n\n"
    );
    assert_eq!(encode_data(""), "data: \n\n");
    assert_eq!(
        encode_event("{}", Some("7"), Some("RUN_STARTED")),
        "event: RUN_STARTED\nid: 7\ndata: {}\n\n"
    );
    assert_eq!(encode_event("{}", None, None), "data: {}\n\n");
    assert_eq!(
        encode_event("{}", Some("1\n\0x"), Some("a\r\nb")),
        "event: ab\nid: 1x\ndata: {}\n\n"
    );
    assert_eq!(encode_comment("keep-alive"), KEEP_ALIVE);
    assert_eq!(encode_comment("a\nb"), ": a\n: b\n\n");
    assert_eq!(encode_retry(1500), "retry: 1500\n\n");
}

#[test]
fn a_numbered_event_appended_is_framed_as_encode_event_frames_it() {
    let mut out = b"before".to_vec();
    for (json, id) in [
        ("{}", 1),
        (r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"x"}"#, 7_041),
        ("a\nb\r\nc\rd", u64::MAX),
        ("", 0),
    ] {
        let start = out.len();
        push_numbered_event(&mut out, json, id);
        assert_eq!(
            std::str::from_utf8(&out[start..]).unwrap(),
            encode_event(json, Some(&id.to_string()), None)
        );
    }
    assert!(out.starts_with(b"before"));
}

#[test]
fn line_end_styles() {
    for stream in [
        "data: a\n\ndata: b\n\n",
        "data: a\r\n\r\ndata: b\r\n\r\n",
        "data: a\r\rdata: b\r\r",
        "data: a\r\n\ndata: b\r\r\n",
    ] {
        assert_eq!(
            decode_every_split(stream.as_bytes()),
            vec![frame("a"), frame("b")],
            "{stream:?}"
        );
    }
}

#[test]
fn cr_at_chunk_end_then_lf_is_one_line_end() {
    let mut dec = Decoder::new();
    assert_eq!(dec.push(b"data: a\r").unwrap(), vec![]);
    // Had the LF counted as a second line end, this would already dispatch.
    assert_eq!(dec.push(b"\n").unwrap(), vec![]);
    assert_eq!(dec.push(b"data: b\r").unwrap(), vec![]);
    assert_eq!(dec.push(b"").unwrap(), vec![]);
    assert_eq!(dec.push(b"\n\r").unwrap(), vec![frame("a\nb")]);
    assert_eq!(dec.pending_bytes(), 0);
    // A lone CR followed by something else still ended the line.
    let mut dec = Decoder::new();
    assert_eq!(dec.push(b"data: a\r").unwrap(), vec![]);
    assert_eq!(dec.push(b"\r").unwrap(), vec![frame("a")]);
}

#[test]
fn multi_line_data_is_joined_by_lf() {
    assert_eq!(
        decode_every_split(b"data: one\ndata: two\ndata:\ndata: three\n\n"),
        vec![frame("one\ntwo\n\nthree")]
    );
}

#[test]
fn comments_are_ignored() {
    assert_eq!(
        decode_every_split(b": hello\ndata: a\n: inside\ndata: b\n\n:\n\n: keep-alive\n\n"),
        vec![frame("a\nb")]
    );
}

#[test]
fn event_id_and_retry_fields() {
    let frames = decode_every_split(b"event: RUN_STARTED\nid: 42\nretry: 3000\ndata: x\n\n");
    assert_eq!(
        frames,
        vec![SseFrame {
            event: Some("RUN_STARTED".into()),
            data: "x".into(),
            id: Some("42".into()),
            retry: Some(3000),
        }]
    );
}

#[test]
fn invalid_retry_is_ignored() {
    for bad in [
        "retry: 12a",
        "retry: -1",
        "retry: ",
        "retry",
        "retry:  5",
        "retry: 1.5",
    ] {
        let stream = format!("{bad}\ndata: x\n\n");
        let mut dec = Decoder::new();
        let frames = dec.push(stream.as_bytes()).unwrap();
        assert_eq!(frames, vec![frame("x")], "{bad:?}");
        assert_eq!(dec.reconnection_time(), None, "{bad:?}");
    }
    assert_eq!(
        decode_all(b"retry: 99999999999999999999999\ndata: x\n\n")[0].retry,
        None
    );
}

#[test]
fn retry_belongs_to_its_frame_only() {
    let mut dec = Decoder::new();
    let frames = dec.push(b"retry: 10\ndata: a\n\ndata: b\n\n").unwrap();
    assert_eq!(frames[0].retry, Some(10));
    assert_eq!(frames[1].retry, None);
    assert_eq!(dec.reconnection_time(), Some(10));
    // A retry-only block (what encode_retry sends) dispatches nothing but still counts.
    let mut dec = Decoder::new();
    assert_eq!(dec.push(encode_retry(250).as_bytes()).unwrap(), vec![]);
    assert_eq!(dec.reconnection_time(), Some(250));
    assert_eq!(dec.push(b"data: a\n\n").unwrap(), vec![frame("a")]);
}

#[test]
fn field_without_colon_has_empty_value() {
    let frames = decode_every_split(b"data\ndata\n\nevent: e\nevent\ndata: x\n\n");
    assert_eq!(frames, vec![frame("\n"), frame("x")]);
    // `data` alone still makes the frame non-empty.
    assert_eq!(decode_all(b"data\n\n"), vec![frame("")]);
}

#[test]
fn only_one_space_is_stripped() {
    assert_eq!(
        decode_every_split(b"data:  two\ndata:none\ndata:\tx\ndata: \n\n"),
        vec![frame(" two\nnone\n\tx\n")]
    );
    assert_eq!(
        decode_all(b"event:  e\ndata: x\n\n")[0].event.as_deref(),
        Some(" e")
    );
}

#[test]
fn unknown_fields_and_odd_names_are_ignored() {
    assert_eq!(
        decode_every_split(b"foo: bar\nData: no\n data: no\ndata : no\ndata: yes\n\n"),
        vec![frame("yes")]
    );
}

#[test]
fn leading_bom_is_skipped_once() {
    let mut stream = BOM.to_vec();
    stream.extend_from_slice(b"data: a\n\n");
    assert_eq!(decode_every_split(&stream), vec![frame("a")]);
    // Only at the very start: later it is part of the text.
    let mut stream = b"data: a\n\n".to_vec();
    stream.extend_from_slice(&BOM);
    stream.extend_from_slice(b"data: b\n\n");
    // BOM+`data` is an unknown field name, so the second frame has no data.
    assert_eq!(decode_every_split(&stream), vec![frame("a")]);
    // Two BOMs: the second is not skipped, so the field name is not `data`.
    let mut stream = [BOM, BOM].concat();
    stream.extend_from_slice(b"data: a\n\n");
    assert_eq!(decode_every_split(&stream), vec![]);
}

#[test]
fn partial_bom_is_ordinary_text() {
    // EF BB then `d`: not a BOM, the two bytes are invalid UTF-8 in the field name.
    assert_eq!(
        decode_every_split(b"\xEF\xBBdata: a\n\ndata: b\n\n"),
        vec![frame("b")]
    );
    let mut dec = Decoder::new();
    assert_eq!(dec.push(b"\xEF").unwrap(), vec![]);
    assert_eq!(dec.pending_bytes(), 1);
    assert_eq!(dec.finish().unwrap(), vec![]);
    assert!(dec.ended_mid_frame());
    assert_eq!(decode_all(b"data: \xEF\xBB\n\n"), vec![frame("\u{FFFD}")]);
}

#[test]
fn utf8_split_across_pushes() {
    for text in ["é", "😀", "a€b", "日本語😀é"] {
        let stream = format!("event: {text}\nid: {text}\ndata: {text}\n\n");
        let frames = decode_every_split(stream.as_bytes());
        assert_eq!(
            frames,
            vec![SseFrame {
                event: Some(text.into()),
                data: text.into(),
                id: Some(text.into()),
                retry: None,
            }]
        );
    }
}

#[test]
fn invalid_utf8_is_replaced() {
    assert_eq!(
        decode_every_split(b"data: a\xFFb\xC3\n\n"),
        vec![frame("a\u{FFFD}b\u{FFFD}")]
    );
}

#[test]
fn blank_lines_alone_yield_nothing() {
    assert_eq!(decode_every_split(b"\n\n\r\n\r\r\n\n"), vec![]);
    assert_eq!(decode_every_split(b""), vec![]);
    assert_eq!(decode_every_split(b"event: e\nid: 1\n\n"), vec![]);
}

#[test]
fn id_persists_and_updates_last_event_id() {
    let mut dec = Decoder::new();
    let frames = dec
        .push(b"id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\nid\ndata: d\n\n")
        .unwrap();
    let ids: Vec<_> = frames.iter().map(|f| f.id.as_deref()).collect();
    assert_eq!(ids, [Some("1"), Some("1"), Some("2"), None]);
    assert_eq!(dec.last_event_id(), None);
    // An id alone updates the last event id, but only once its block ends.
    assert_eq!(dec.push(b"id: 9\n").unwrap(), vec![]);
    assert_eq!(dec.last_event_id(), None);
    assert_eq!(dec.push(b"\n").unwrap(), vec![]);
    assert_eq!(dec.last_event_id(), Some("9"));
    // An id containing NUL is ignored.
    assert_eq!(
        dec.push(b"id: 1\x002\ndata: e\n\n").unwrap()[0]
            .id
            .as_deref(),
        Some("9")
    );
    assert_eq!(dec.last_event_id(), Some("9"));
}

#[test]
fn event_name_resets_after_each_frame() {
    let frames = decode_every_split(b"event: a\ndata: 1\n\ndata: 2\n\nevent: b\n\ndata: 3\n\n");
    let events: Vec<_> = frames.iter().map(|f| f.event.as_deref()).collect();
    assert_eq!(events, [Some("a"), None, None]);
    assert_eq!(decode_all(b"event:\ndata: x\n\n")[0].event, None);
}

#[test]
fn endless_line_hits_the_limit() {
    let mut dec = Decoder::with_limit(16);
    assert_eq!(dec.push(b"data: 0123456789").unwrap(), vec![]);
    let err = dec.push(b"abc").unwrap_err();
    assert_eq!(err, SseError::LineTooLong { limit: 16 });
    assert_eq!(
        err.to_string(),
        "SSE line exceeds the 16-byte limit without a line end"
    );
    assert!(dec.pending_bytes() <= 16);
    // The decoder refuses to go on.
    assert_eq!(dec.push(b"\n\n"), Err(err.clone()));
    assert_eq!(dec.finish(), Err(err));
    // A line exactly at the limit is fine, one more byte is not, however it is split.
    let mut dec = Decoder::with_limit(7);
    assert_eq!(dec.push(b"data: a\n\n").unwrap(), vec![frame("a")]);
    assert!(Decoder::with_limit(7).push(b"data: ab\n\n").is_err());
    let mut dec = Decoder::with_limit(7);
    dec.push(b"data:").unwrap();
    assert!(dec.push(b" ab\n").is_err());
    assert_eq!(
        SseError::LineTooLong {
            limit: Decoder::DEFAULT_MAX_LINE
        }
        .to_string(),
        "SSE line exceeds the 10485760-byte limit without a line end"
    );
}

#[test]
fn endless_stream_without_line_end_stays_bounded() {
    let mut dec = Decoder::with_limit(1 << 16);
    let chunk = [b'x'; 1000];
    let mut failed = false;
    for _ in 0..1000 {
        match dec.push(&chunk) {
            Ok(frames) => assert!(frames.is_empty()),
            Err(SseError::LineTooLong { .. }) => {
                failed = true;
                break;
            }
            Err(other) => panic!("{other}"),
        }
        assert!(dec.pending_bytes() <= 1 << 16);
    }
    assert!(failed);
}

#[test]
fn huge_data_hits_the_limit() {
    let mut dec = Decoder::with_limit(100);
    let line = format!("data: {}\n", "y".repeat(40));
    dec.push(line.as_bytes()).unwrap();
    dec.push(line.as_bytes()).unwrap();
    let err = dec.push(line.as_bytes()).unwrap_err();
    assert_eq!(err, SseError::DataTooLarge { limit: 100 });
    assert!(err.to_string().contains("100-byte limit"), "{err}");
    assert_eq!(dec.push(b"\n"), Err(err));
    // The same data split over frames is fine.
    let mut dec = Decoder::with_limit(100);
    for _ in 0..10 {
        assert_eq!(dec.push(format!("{line}\n").as_bytes()).unwrap().len(), 1);
    }
}

#[test]
fn finish_with_trailing_blank_line() {
    let mut dec = Decoder::new();
    assert_eq!(dec.push(b"data: a\n\n").unwrap(), vec![frame("a")]);
    assert_eq!(dec.finish().unwrap(), vec![]);
    assert!(!dec.ended_mid_frame());
}

#[test]
fn finish_without_trailing_blank_line_is_lenient() {
    for stream in [&b"data: a\n"[..], b"data: a", b"data: a\r", b"data: a\r\n"] {
        let mut dec = Decoder::new();
        assert_eq!(dec.push(stream).unwrap(), vec![], "{stream:?}");
        assert_eq!(dec.finish().unwrap(), vec![frame("a")], "{stream:?}");
        assert!(dec.ended_mid_frame(), "{stream:?}");
        assert_eq!(dec.pending_bytes(), 0);
    }
    // Nothing with data pending: nothing to dispatch, but an unterminated line is reported.
    let mut dec = Decoder::new();
    dec.push(b"data: a\n\n: comm").unwrap();
    assert_eq!(dec.finish().unwrap(), vec![]);
    assert!(dec.ended_mid_frame());
    // The decoder can be reused after finish; the last event id is kept.
    let mut dec = Decoder::new();
    dec.push(b"id: 5\ndata: a").unwrap();
    assert_eq!(dec.finish().unwrap()[0].id.as_deref(), Some("5"));
    assert_eq!(
        dec.push(b"data: b\n\n").unwrap()[0].id.as_deref(),
        Some("5")
    );
}

#[test]
fn encode_event_round_trips() {
    let json = r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"héllo 😀"}"#;
    let mut stream = String::new();
    stream.push_str(&encode_event(
        json,
        Some("evt-1"),
        Some("TEXT_MESSAGE_CONTENT"),
    ));
    stream.push_str(KEEP_ALIVE);
    stream.push_str(&encode_data(json));
    stream.push_str(&encode_event("multi\nline", None, Some("x")));
    let frames = decode_every_split(stream.as_bytes());
    assert_eq!(
        frames,
        vec![
            SseFrame {
                event: Some("TEXT_MESSAGE_CONTENT".into()),
                data: json.into(),
                id: Some("evt-1".into()),
                retry: None,
            },
            SseFrame {
                id: Some("evt-1".into()),
                ..frame(json)
            },
            SseFrame {
                event: Some("x".into()),
                id: Some("evt-1".into()),
                ..frame("multi\nline")
            },
        ]
    );
}

#[test]
fn many_small_events_decode_quickly() {
    // Correctness of the bulk path; the timing is measured in release builds.
    let one = encode_event(
        r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"hi"}"#,
        None,
        None,
    );
    let stream = one.repeat(10_000);
    let mut dec = Decoder::new();
    let mut count = 0;
    for chunk in stream.as_bytes().chunks(4096) {
        count += dec.push(chunk).unwrap().len();
    }
    count += dec.finish().unwrap().len();
    assert_eq!(count, 10_000);
}

// ---- property tests ----

#[derive(Debug, Clone)]
struct GenFrame {
    event: Option<&'static str>,
    data: String,
    /// `Some("")` resets the last event id.
    id: Option<String>,
    retry: Option<u64>,
    /// 0 = LF, 1 = CRLF, 2 = CR.
    line_end: u8,
    comment_inside: Option<String>,
    comment_after: Option<String>,
}

fn data_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::sample::select(vec!['a', 'z', ' ', ':', '{', '"', '\n', '\r', 'é', '😀', '\u{FEFF}']),
        1 => any::<char>(),
    ]
}

fn gen_text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(data_char(), 0..max).prop_map(|c| c.into_iter().collect())
}

fn gen_frame() -> impl Strategy<Value = GenFrame> {
    (
        prop::option::of(prop::sample::select(vec![
            "RUN_STARTED",
            "message",
            "x-y",
            "é",
        ])),
        gen_text(24),
        prop::option::of(prop_oneof![
            Just(String::new()),
            "[a-z0-9-]{1,6}",
            Just("😀1".to_owned())
        ]),
        prop::option::of(0u64..100_000),
        0u8..3,
        prop::option::of(gen_text(8)),
        prop::option::of(gen_text(8)),
    )
        .prop_map(
            |(event, data, id, retry, line_end, comment_inside, comment_after)| GenFrame {
                event,
                data,
                id,
                retry,
                line_end,
                comment_inside,
                comment_after,
            },
        )
}

fn with_line_end(lf_text: &str, style: u8) -> String {
    match style {
        0 => lf_text.to_owned(),
        1 => lf_text.replace('\n', "\r\n"),
        _ => lf_text.replace('\n', "\r"),
    }
}

/// The stream plus the frames a conforming decoder must produce from it.
fn build(frames: &[GenFrame], bom: bool, drop_final_blank: bool) -> (Vec<u8>, Vec<SseFrame>) {
    let mut stream = String::new();
    if bom {
        stream.push('\u{FEFF}');
    }
    let mut expected = Vec::new();
    let mut last_id: Option<String> = None;
    for (i, f) in frames.iter().enumerate() {
        let mut block = String::new();
        if let Some(c) = &f.comment_inside {
            // Just the comment lines, without encode_comment's blank line.
            let c = encode_comment(c);
            block.push_str(&c[..c.len() - 1]);
        }
        if let Some(ms) = f.retry {
            block.push_str(&format!("retry: {ms}\n"));
        }
        block.push_str(&encode_event(&f.data, f.id.as_deref(), f.event));
        let last = i + 1 == frames.len();
        if last && drop_final_blank && f.comment_after.is_none() {
            block.pop();
        }
        if let Some(c) = &f.comment_after {
            block.push_str(&encode_comment(c));
        }
        stream.push_str(&with_line_end(&block, f.line_end));

        if let Some(id) = &f.id {
            last_id = Some(id.clone()).filter(|id| !id.is_empty());
        }
        expected.push(SseFrame {
            event: f.event.map(str::to_owned),
            data: f.data.replace("\r\n", "\n").replace('\r', "\n"),
            id: last_id.clone(),
            retry: f.retry,
        });
    }
    (stream.into_bytes(), expected)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn split_anywhere_decodes_the_same(
        frames in prop::collection::vec(gen_frame(), 0..12),
        bom in any::<bool>(),
        drop_final_blank in any::<bool>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
        bytewise in prop::bool::weighted(0.1),
    ) {
        let (stream, expected) = build(&frames, bom, drop_final_blank);
        let whole = decode_all(&stream);
        prop_assert_eq!(&whole, &expected);

        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(stream.len() + 1)).collect();
        points.sort_unstable();
        let mut pieces = Vec::new();
        let mut start = 0;
        for p in points {
            pieces.push(&stream[start..p]);
            start = p;
        }
        pieces.push(&stream[start..]);
        prop_assert_eq!(&decode_chunks(pieces), &expected);
        if bytewise {
            prop_assert_eq!(&decode_chunks(stream.chunks(1)), &expected);
        }
    }

    #[test]
    fn arbitrary_bytes_split_anywhere_decode_the_same(
        bytes in prop::collection::vec(
            prop_oneof![
                3 => prop::sample::select(b"data: \r\n:idevent\xEF\xBB\xBF\xC3\xA9".to_vec()),
                1 => any::<u8>(),
            ],
            0..200,
        ),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..16),
    ) {
        let whole = decode_all(&bytes);
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut pieces = Vec::new();
        let mut start = 0;
        for p in points {
            pieces.push(&bytes[start..p]);
            start = p;
        }
        pieces.push(&bytes[start..]);
        prop_assert_eq!(&decode_chunks(pieces), &whole);
        prop_assert_eq!(&decode_chunks(bytes.chunks(1)), &whole);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Size extremes: huge lines (past the limit or not), frames of many fields, invalid UTF-8
    /// anywhere, in random pieces. Never a panic; memory stays bounded by the line limit (a line
    /// past it is an error, not a buffer).
    #[test]
    fn huge_lines_many_fields_and_invalid_utf8_never_panic(
        line_len in 0usize..200_000,
        fields in 0usize..2_000,
        junk in prop::collection::vec(any::<u8>(), 0..64),
        limit in prop::sample::select(vec![64usize, 4096, 1 << 16, 1 << 20]),
        cut in 1usize..70_000,
    ) {
        let mut stream = b"data: ".to_vec();
        stream.extend(std::iter::repeat_n(b'x', line_len));
        stream.extend_from_slice(b"\n");
        for i in 0..fields {
            stream.extend_from_slice(if i % 3 == 0 { b"data: \xff\xfe\n" } else { b"id: 1\n" });
        }
        stream.extend_from_slice(&junk);
        stream.extend_from_slice(b"\n\n");
        let mut dec = Decoder::with_limit(limit);
        let mut failed = false;
        for piece in stream.chunks(cut) {
            if dec.push(piece).is_err() {
                failed = true;
                break;
            }
        }
        if !failed {
            let _ = dec.finish();
        }
        if line_len + 6 > limit {
            prop_assert!(failed, "a line past the limit is an error");
        }
    }
}

//! Scans of bytes eight at a time, for the codecs' hot loops (the SSE decoder's line ends, the
//! JSON text of a delta read or written without serde).
//!
//! A word answers "does any byte match?" without a branch per byte: for the bytes `b` of a
//! word `v`, `b ^ x` is zero exactly where `b == x`, and `(v - n·0x01…) & !v & 0x80…` is non-zero
//! exactly when some byte is below `n` (for `n` ≤ 128; a borrow only ever runs on from a byte
//! that matched, so the answer for the word is exact). The byte itself is then found one at a
//! time, in the word that matched.
//!
//! The loops index the bytes themselves: the page's module is compiled for size
//! (`opt-level = "z"`), where neither an iterator's `next` nor `copy_from_slice` is inlined — a
//! call per byte or per word, which cost the page's pipeline a fifth of its time
//! (`end2end/bench/pipeline.mjs` with `BENCH_PROFILE`). A word is read through a reference to
//! an array: one load, no copy.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Every byte of a word set to `b`.
const fn splat(b: u8) -> u64 {
    LO * b as u64
}

/// Whether a byte of `v` is below `n` (`n` ≤ 128; bytes of 0x80 and above never count).
#[inline(always)]
const fn has_less(v: u64, n: u8) -> bool {
    v.wrapping_sub(splat(n)) & !v & HI != 0
}

/// Whether a byte of `v` is `b`.
#[inline(always)]
const fn has_byte(v: u64, b: u8) -> bool {
    has_less(v ^ splat(b), 1)
}

/// The eight bytes from `at`, if there are eight.
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> Option<u64> {
    let w: &[u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(*w))
}

/// Position of the first byte that `is` accepts, skipping the words `any` says hold none.
#[inline(always)]
fn find(bytes: &[u8], any: impl Fn(u64) -> bool, is: impl Fn(u8) -> bool) -> Option<usize> {
    let mut i = 0;
    while let Some(v) = word(bytes, i) {
        if any(v) {
            break;
        }
        i += 8;
    }
    while i < bytes.len() {
        if is(bytes[i]) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Position of the first CR or LF: on the server (which frames every event it sends with it),
/// `memchr`'s vector search; in the page, eight bytes at a time.
pub fn line_end(bytes: &[u8]) -> Option<usize> {
    #[cfg(feature = "ssr")]
    {
        memchr::memchr2(b'\n', b'\r', bytes)
    }
    #[cfg(not(feature = "ssr"))]
    {
        line_end_by_words(bytes)
    }
}

/// [`line_end`], eight bytes at a time.
#[cfg(any(test, not(feature = "ssr")))]
fn line_end_by_words(bytes: &[u8]) -> Option<usize> {
    find(
        bytes,
        |v| has_byte(v, b'\n') || has_byte(v, b'\r'),
        |b| matches!(b, b'\n' | b'\r'),
    )
}

/// Position of the first `byte`.
pub fn position(bytes: &[u8], byte: u8) -> Option<usize> {
    find(bytes, |v| has_byte(v, byte), |b| b == byte)
}

/// Position of the first byte a JSON string cannot hold raw: `"`, `\` or one below 0x20.
pub fn json_special(bytes: &[u8]) -> Option<usize> {
    find(
        bytes,
        |v| has_less(v, 0x20) || has_byte(v, b'"') || has_byte(v, b'\\'),
        |b| b < 0x20 || b == b'"' || b == b'\\',
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each scan against the obvious one, for the wanted byte at every position of every length
    /// up to three words, among neighbours that differ from it by one bit and by the high bit
    /// (where a word-wide trick would go wrong), and with a second match after the first.
    #[test]
    fn every_scan_finds_what_a_byte_by_byte_scan_finds() {
        type Scan = (fn(&[u8]) -> Option<usize>, fn(u8) -> bool);
        let scans: [(&str, Scan, &[u8]); 5] = [
            (
                "line_end",
                (line_end, |b| b == b'\n' || b == b'\r'),
                b"\n\r",
            ),
            (
                "line_end_by_words",
                (line_end_by_words, |b| b == b'\n' || b == b'\r'),
                b"\n\r",
            ),
            ("position(:)", (|s| position(s, b':'), |b| b == b':'), b":"),
            ("position(0)", (|s| position(s, 0), |b| b == 0), b"\0"),
            (
                "json_special",
                (json_special, |b| b < 0x20 || b == b'"' || b == b'\\'),
                b"\"\\\0\x1f\n",
            ),
        ];
        let fillers: &[u8] = b"a\x0b\x0c\x0e\x8a\x8d\xa2\xdc\xba\x20\x21\x7f\x80\xff\x3b\x5d\x23";
        for (name, (scan, wanted), targets) in scans {
            for len in 0..24 {
                for &fill in fillers {
                    let plain = vec![fill; len];
                    let expected = plain.iter().position(|&b| wanted(b));
                    assert_eq!(scan(&plain), expected, "{name}: {len} × {fill:#x}");
                    for at in 0..len {
                        for &t in targets {
                            let mut s = plain.clone();
                            s[at] = t;
                            if at + 3 < len {
                                s[at + 3] = t;
                            }
                            let expected = s.iter().position(|&b| wanted(b));
                            assert_eq!(scan(&s), expected, "{name}: {s:?}");
                        }
                    }
                }
            }
        }
    }
}

//! The URL policy, and the code block languages kept from info strings.

/// At most this many characters of a code block's language are kept.
const MAX_LANG: usize = 32;

/// Returns the URL to use as an `href`, or `None` if the URL must not become a link.
///
/// Allowed: `http:`, `https:`, `mailto:` (scheme case-insensitive) and URLs without a scheme
/// (relative paths, `?query`, `#fragment`, `//host/path`). Leading/trailing whitespace and
/// control characters are stripped and tab/CR/LF removed anywhere (browsers ignore them, so
/// `java\tscript:` would otherwise slip through); any other control character rejects the URL.
pub fn sanitize_url(raw: &str) -> Option<String> {
    let trimmed = raw.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    if trimmed.is_empty() {
        return None;
    }
    let mut url = String::with_capacity(trimmed.len());
    for c in trimmed.chars() {
        match c {
            '\t' | '\n' | '\r' => {}
            c if c.is_control() => return None,
            c => url.push(c),
        }
    }
    // A scheme is whatever precedes a ':' that comes before any '/', '?' or '#'.
    match url.find([':', '/', '?', '#']) {
        Some(i) if url.as_bytes()[i] == b':' => {
            let scheme = &url[..i];
            let allowed = ["http", "https", "mailto"]
                .iter()
                .any(|s| scheme.eq_ignore_ascii_case(s));
            allowed.then_some(url)
        }
        _ => Some(url),
    }
}

/// Keeps the first word of a code block's info string, restricted to `[A-Za-z0-9_+#.-]`.
pub(super) fn sanitize_lang(info: &str) -> Option<String> {
    let word = info.split_whitespace().next().unwrap_or("");
    let word = word.split(',').next().unwrap_or(""); // `rust,ignore`
    let lang: String = word
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '#' | '.' | '-'))
        .take(MAX_LANG)
        .collect();
    (!lang.is_empty()).then_some(lang)
}

//! A small regular-expression matcher for the patterns catalogs and checks use (`^#[0-9a-fA-F]{6}$`,
//! `^[A-Z]{3}$`, `\d+`): literals, `.`, classes with ranges and `\d \w \s`, the quantifiers
//! `? * + {n} {n,} {n,m}` and the anchors `^ $`. Groups and alternation are not supported: such
//! a pattern is reported as unknown (`None`) and the caller does not judge by it.
//!
//! Patterns come from agents, so matching is bounded: at most [`MAX_PATTERN`] characters and
//! [`MAX_STEPS`] steps of backtracking; past either the answer is `None`, never a hang.

const MAX_PATTERN: usize = 256;
const MAX_STEPS: usize = 100_000;

#[derive(Debug, Clone)]
enum Atom {
    Char(char),
    Any,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Atom {
    fn matches(&self, c: char) -> bool {
        match self {
            Atom::Char(x) => *x == c,
            Atom::Any => c != '\n',
            Atom::Class { negated, ranges } => {
                ranges.iter().any(|(a, b)| *a <= c && c <= *b) != *negated
            }
        }
    }
}

struct Piece {
    atom: Atom,
    min: usize,
    max: usize,
}

fn escape_class(c: char) -> Option<(bool, Vec<(char, char)>)> {
    let digits = vec![('0', '9')];
    let word = vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
    let space = vec![(' ', ' '), ('\t', '\r')];
    Some(match c {
        'd' => (false, digits),
        'D' => (true, digits),
        'w' => (false, word),
        'W' => (true, word),
        's' => (false, space),
        'S' => (true, space),
        _ => return None,
    })
}

fn parse(p: &str) -> Option<(Vec<Piece>, bool, bool)> {
    let mut chars: Vec<char> = p.chars().collect();
    let start = chars.first() == Some(&'^');
    if start {
        chars.remove(0);
    }
    let end = chars.last() == Some(&'$') && !(chars.len() >= 2 && chars[chars.len() - 2] == '\\');
    if end {
        chars.pop();
    }
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let atom = match chars[i] {
            '(' | ')' | '|' | '^' | '$' | '{' | '}' | '*' | '+' | '?' => return None,
            '.' => Atom::Any,
            '\\' => {
                i += 1;
                let c = *chars.get(i)?;
                match escape_class(c) {
                    Some((negated, ranges)) => Atom::Class { negated, ranges },
                    None if c.is_ascii_alphanumeric() => return None,
                    None => Atom::Char(c),
                }
            }
            '[' => {
                i += 1;
                let negated = chars.get(i) == Some(&'^');
                if negated {
                    i += 1;
                }
                let mut ranges = Vec::new();
                let mut first = true;
                loop {
                    let c = *chars.get(i)?;
                    if c == ']' && !first {
                        break;
                    }
                    first = false;
                    let lo = if c == '\\' {
                        i += 1;
                        let e = *chars.get(i)?;
                        if let Some((false, rs)) = escape_class(e) {
                            ranges.extend(rs);
                            i += 1;
                            continue;
                        }
                        e
                    } else {
                        c
                    };
                    if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|c| *c != ']')
                    {
                        ranges.push((lo, chars[i + 2]));
                        i += 3;
                    } else {
                        ranges.push((lo, lo));
                        i += 1;
                    }
                }
                Atom::Class { negated, ranges }
            }
            c => Atom::Char(c),
        };
        i += 1;
        let (min, max) = match chars.get(i) {
            Some('?') => (0, 1),
            Some('*') => (0, usize::MAX),
            Some('+') => (1, usize::MAX),
            Some('{') => {
                let close = chars[i..].iter().position(|c| *c == '}')? + i;
                let inner: String = chars[i + 1..close].iter().collect();
                let (a, b) = match inner.split_once(',') {
                    None => (inner.parse().ok()?, inner.parse().ok()?),
                    Some((a, "")) => (a.parse().ok()?, usize::MAX),
                    Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
                };
                i = close;
                (a, b)
            }
            _ => {
                i -= 1;
                (1, 1)
            }
        };
        i += 1;
        if min > max || min > MAX_PATTERN {
            return None;
        }
        pieces.push(Piece { atom, min, max });
    }
    Some((pieces, start, end))
}

/// Whether `text` matches `pattern` (searching, like JavaScript's `test`); `None` when the
/// pattern is outside the supported subset or too costly to decide.
pub fn is_match(pattern: &str, text: &str) -> Option<bool> {
    if pattern.len() > MAX_PATTERN {
        return None;
    }
    let (pieces, start, end) = parse(pattern)?;
    let text: Vec<char> = text.chars().collect();
    let mut steps = 0usize;
    let last_start = if start { 0 } else { text.len() };
    for from in 0..=last_start {
        match at(&pieces, &text, from, end, &mut steps) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => return None,
        }
    }
    Some(false)
}

/// Backtracking over the pieces; the recursion is one level per piece (at most the pattern's
/// length) and the steps are counted.
fn at(pieces: &[Piece], text: &[char], pos: usize, end: bool, steps: &mut usize) -> Option<bool> {
    *steps += 1;
    if *steps > MAX_STEPS {
        return None;
    }
    let Some((p, rest)) = pieces.split_first() else {
        return Some(!end || pos == text.len());
    };
    let mut n = 0;
    while n < p.max && pos + n < text.len() && p.atom.matches(text[pos + n]) {
        n += 1;
    }
    // The scan costs steps too, so a long text cannot multiply the work unseen.
    *steps += n;
    if n < p.min {
        return Some(false);
    }
    for k in (p.min..=n).rev() {
        if at(rest, text, pos + k, end, steps)? {
            return Some(true);
        }
    }
    Some(false)
}

#[cfg(test)]
mod tests {
    use super::is_match;

    #[test]
    fn supported_patterns() {
        assert_eq!(is_match("^#[0-9a-fA-F]{6}$", "#00ff00"), Some(true));
        assert_eq!(
            is_match("^#[0-9a-fA-F]{6}$", "not-a-hex-color"),
            Some(false)
        );
        assert_eq!(is_match("^#[0-9a-fA-F]{6}$", "#00ff001"), Some(false));
        assert_eq!(is_match(r"\d+", "ab12"), Some(true));
        assert_eq!(is_match(r"^\d{3}-\d{4}$", "555-1234"), Some(true));
        assert_eq!(is_match("^[^@]+@[^@]+\\.[a-z]{2,}$", "a@b.io"), Some(true));
        assert_eq!(is_match("^a?b*c+$", "c"), Some(true));
        assert_eq!(is_match("x", ""), Some(false));
    }

    #[test]
    fn unsupported_or_costly_patterns_are_unknown() {
        assert_eq!(is_match("(a|b)", "a"), None);
        assert_eq!(is_match("a{2", "aa"), None);
        assert_eq!(is_match(&"a".repeat(300), "a"), None);
        // Catastrophic backtracking is cut off, not waited for.
        let text = format!("{}b", "a".repeat(5000));
        assert_eq!(is_match("^a*a*a*a*a*a*c$", &text), None);
    }
}

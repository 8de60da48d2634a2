//! The basic catalog's functions, evaluated for display and checks: `required`, `regex`,
//! `length`, `numeric`, `email`, `formatString`, `formatNumber`, `formatCurrency`,
//! `formatDate`, `pluralize`, `and`, `or`, `not`. `openUrl` is never run from here (a URL an
//! agent names is not opened without the user); it evaluates to `null`.
//!
//! Calls nest at most [`MAX_CALL_DEPTH`] deep (deeper ones evaluate to `null`) and no result
//! string grows past [`MAX_RESULT`] bytes, whatever the arguments.

use serde_json::{Map, Value};

use super::pattern;
use super::scope::{binding_path, display, Scope};

/// The validator's bound on nested calls (`A2uiLimits::max_call_depth`'s default).
pub const MAX_CALL_DEPTH: usize = 5;
/// Bytes of one formatted string.
pub const MAX_RESULT: usize = 64 * 1024;

/// The value of a call (`{call, args}`), or `null` when it cannot be evaluated.
pub fn evaluate(call: &Value, scope: &Scope<'_>) -> Value {
    eval_at(call, scope, 1)
}

fn resolve_at(v: &Value, scope: &Scope<'_>, depth: usize) -> Value {
    if let Some(p) = binding_path(v) {
        return scope.read(p).cloned().unwrap_or(Value::Null);
    }
    if v.get("call").is_some_and(Value::is_string) {
        return eval_at(v, scope, depth + 1);
    }
    v.clone()
}

fn eval_at(call: &Value, scope: &Scope<'_>, depth: usize) -> Value {
    if depth > MAX_CALL_DEPTH {
        return Value::Null;
    }
    let name = call.get("call").and_then(Value::as_str).unwrap_or_default();
    let empty = Map::new();
    let args = call
        .get("args")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let arg = |k: &str| {
        args.get(k)
            .map(|a| resolve_at(a, scope, depth))
            .unwrap_or(Value::Null)
    };
    let num = |k: &str| as_number(&arg(k));
    match name {
        "required" => Value::Bool(match arg("value") {
            Value::Null => false,
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            _ => true,
        }),
        "regex" => {
            let text = display(&arg("value"));
            let p = display(&arg("pattern"));
            // A pattern outside the supported subset does not fail the user's input.
            Value::Bool(pattern::is_match(&p, &text).unwrap_or(true))
        }
        "length" => {
            let n = display(&arg("value")).chars().count() as f64;
            Value::Bool(num("min").is_none_or(|m| n >= m) && num("max").is_none_or(|m| n <= m))
        }
        "numeric" => Value::Bool(match num("value") {
            Some(x) => num("min").is_none_or(|m| x >= m) && num("max").is_none_or(|m| x <= m),
            None => false,
        }),
        "email" => Value::Bool(is_email(&display(&arg("value")))),
        "formatString" => Value::String(format_string(&display(&arg("value")), scope)),
        "formatNumber" => match num("value") {
            Some(x) => Value::String(format_number(
                x,
                num("decimals"),
                arg("grouping").as_bool().unwrap_or(true),
            )),
            None => Value::Null,
        },
        "formatCurrency" => match num("value") {
            Some(x) => {
                let code = display(&arg("currency")).to_ascii_uppercase();
                let n = format_number(
                    x.abs(),
                    Some(num("decimals").unwrap_or(2.0)),
                    arg("grouping").as_bool().unwrap_or(true),
                );
                let sign = if x < 0.0 { "-" } else { "" };
                let code: String = code.chars().take(8).collect();
                Value::String(match code.as_str() {
                    "USD" => format!("{sign}${n}"),
                    "EUR" => format!("{sign}€{n}"),
                    "GBP" => format!("{sign}£{n}"),
                    "JPY" => format!("{sign}¥{n}"),
                    _ => format!("{sign}{code} {n}"),
                })
            }
            None => Value::Null,
        },
        "formatDate" => Value::String(format_date(
            &display(&arg("value")),
            &display(&arg("format")),
        )),
        "pluralize" => {
            let n = num("value").unwrap_or(0.0);
            let pick = |k: &str| args.get(k).map(|a| display(&resolve_at(a, scope, depth)));
            let form = if n == 0.0 {
                pick("zero")
            } else if n == 1.0 {
                pick("one")
            } else if n == 2.0 {
                pick("two")
            } else {
                None
            };
            Value::String(form.or_else(|| pick("other")).unwrap_or_default())
        }
        "and" | "or" => {
            let values: Vec<bool> = match args.get("values") {
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| resolve_at(x, scope, depth).as_bool().unwrap_or(false))
                    .collect(),
                _ => return Value::Null,
            };
            Value::Bool(if name == "and" {
                values.iter().all(|b| *b)
            } else {
                values.iter().any(|b| *b)
            })
        }
        "not" => match arg("value") {
            Value::Bool(b) => Value::Bool(!b),
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.chars().any(char::is_whitespace)
}

/// `${/abs/path}` and `${rel/path}` replaced by the values there; `\${` is a literal `${`.
/// Function calls inside `${…}` are not evaluated (they read as empty).
pub fn format_string(template: &str, scope: &Scope<'_>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while !rest.is_empty() && out.len() < MAX_RESULT {
        if let Some(after) = rest.strip_prefix("\\${") {
            out.push_str("${");
            rest = after;
        } else if let Some(after) = rest.strip_prefix("${") {
            let Some(end) = after.find('}') else {
                out.push_str(rest);
                break;
            };
            let expr = after[..end].trim();
            if !expr.contains('(') {
                out.push_str(&scope.read(expr).map(display).unwrap_or_default());
            }
            rest = &after[end + 1..];
        } else {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    truncate(out)
}

fn truncate(mut s: String) -> String {
    if s.len() > MAX_RESULT {
        let mut cut = MAX_RESULT;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

/// `x` with `decimals` places (0 for whole numbers and 2 otherwise by default) and, when
/// `grouping`, a comma every three digits.
pub fn format_number(x: f64, decimals: Option<f64>, grouping: bool) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let d = decimals
        .map(|d| d.clamp(0.0, 10.0) as usize)
        .unwrap_or(if x.fract() == 0.0 { 0 } else { 2 });
    let s = format!("{:.*}", d, x.abs());
    let (int, frac) = s
        .split_once('.')
        .map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if grouping && i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if x < 0.0 && s.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "-"
    } else {
        ""
    };
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// An ISO 8601 date or date-time (`2026-01-16`, `2026-01-16T14:30:00Z`) formatted with the
/// TR35 tokens the catalog lists; a value that is not such a date is returned as it is.
pub fn format_date(value: &str, format: &str) -> String {
    let num = |s: Option<&str>| s.and_then(|s| s.parse::<u32>().ok());
    let (date, time) = value.split_once(['T', ' ']).unwrap_or((value, ""));
    let mut parts = date.splitn(3, '-');
    let (Some(y), Some(m), Some(d)) = (num(parts.next()), num(parts.next()), num(parts.next()))
    else {
        return value.to_string();
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return value.to_string();
    }
    let mut t = time.split([':', 'Z', '+', '.']);
    let (hh, mm, ss) = (
        num(t.next()).unwrap_or(0),
        num(t.next()).unwrap_or(0),
        num(t.next()).unwrap_or(0),
    );
    // Days since 1970-01-01 (civil-from-days inverse), for the weekday.
    let (yy, mm_) = if m <= 2 {
        (y as i64 - 1, m + 9)
    } else {
        (y as i64, m - 3)
    };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm_ as i64 + 2) / 5 + d as i64 - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let weekday = DAYS[((days + 3).rem_euclid(7)) as usize];
    let month = MONTHS[(m - 1) as usize];
    let h12 = if hh % 12 == 0 { 12 } else { hh % 12 };
    let mut out = String::new();
    let chars: Vec<char> = format.chars().take(256).collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let mut n = 1;
        while i + n < chars.len() && chars[i + n] == c {
            n += 1;
        }
        let piece = match (c, n) {
            ('y', 2) => format!("{:02}", y % 100),
            ('y', _) => y.to_string(),
            ('M', 1) => m.to_string(),
            ('M', 2) => format!("{m:02}"),
            ('M', 3) => month[..3].to_string(),
            ('M', _) => month.to_string(),
            ('d', 1) => d.to_string(),
            ('d', _) => format!("{d:02}"),
            ('E', 1..=3) => weekday[..3].to_string(),
            ('E', _) => weekday.to_string(),
            ('H', 1) => hh.to_string(),
            ('H', _) => format!("{hh:02}"),
            ('h', 1) => h12.to_string(),
            ('h', _) => format!("{h12:02}"),
            ('m', _) => format!("{mm:02}"),
            ('s', _) => format!("{ss:02}"),
            ('a', _) => (if hh < 12 { "AM" } else { "PM" }).to_string(),
            _ => std::iter::repeat_n(c, n).collect(),
        };
        out.push_str(&piece);
        i += n;
    }
    out
}

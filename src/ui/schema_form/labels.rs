//! The words a generated form shows: labels from property names, what one item of a list is
//! called, and a value as the text of a field.

use serde_json::Value;

/// Characters of a label at most.
pub const LABEL_CHARS: usize = 120;

/// A property name as a label: `risk_level` → "Risk level", `editedArgs` → "Edited args".
pub fn humanize(name: &str) -> String {
    let chars: Vec<char> = name.chars().take(LABEL_CHARS).collect();
    let mut out = String::with_capacity(chars.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        if c == '_' || c == '-' {
            out.push(' ');
        } else if c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
            // A word inside camelCase: lower it unless it starts an acronym ("userID").
            out.push(' ');
            if next.is_some_and(|n| n.is_lowercase()) {
                out.extend(c.to_lowercase());
            } else {
                out.push(c);
            }
        } else {
            out.push(c);
        }
    }
    let words: Vec<&str> = out.split_whitespace().collect();
    let joined = words.join(" ");
    let mut c = joined.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => name.to_string(),
    }
}

/// "steps" → "Step": how one item of a list is called.
pub fn item_noun(label: &str) -> String {
    let l = label.trim();
    let singular = l.strip_suffix('s').filter(|s| s.len() > 1).unwrap_or(l);
    let mut c = singular.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => "Item".into(),
    }
}

/// Pretty JSON (empty for `null`, so an empty field stays empty).
pub fn pretty(v: &Value) -> String {
    if v.is_null() {
        String::new()
    } else {
        serde_json::to_string_pretty(v).unwrap_or_default()
    }
}

//! The one grammar of `--llm` and `--proxy`: `ID=URL[,KEY=VALUE]…`.
//!
//! The id becomes a path segment (`/api/agents/ID`), so it is kept to unreserved characters; the
//! URL must be `http://` or `https://` with a host; every option is `KEY=VALUE` with a known key
//! and a non-empty value, given once unless the flag says it repeats. Each flag then reads its
//! own keys ([`super::llm::spec`], [`super::proxy::spec`]) and implements `FromStr` on top, so
//! clap refuses a bad spec at argument parsing with the flag's name and the reason. Error
//! messages quote user input only briefly: a mistyped spec may hold a key.

use reqwest::Url;

/// A spec split by the grammar, before the flag reads its options.
#[derive(Debug, Clone)]
pub struct AgentSpec {
    pub id: String,
    pub url: Url,
    /// The options in the order given.
    pub options: Vec<(String, String)>,
}

/// An option key a flag accepts, and whether it may be given more than once.
pub struct Key {
    pub name: &'static str,
    pub repeats: bool,
}

impl AgentSpec {
    /// Split and check `spec` for `flag` (e.g. `--llm`), accepting the option `keys`.
    pub fn parse(flag: &'static str, spec: &str, keys: &[Key]) -> Result<Self, SpecError> {
        let known = keys.iter().map(|k| k.name).collect::<Vec<_>>().join(", ");
        let grammar = format!("ID=URL[,KEY=VALUE]… (keys: {known})");
        let spec = spec.trim();
        if spec.is_empty() {
            return Err(SpecError::Empty { flag, grammar });
        }
        let Some((id, rest)) = spec.split_once('=') else {
            let spec = brief(spec);
            return Err(SpecError::NoId {
                flag,
                spec,
                grammar,
            });
        };
        let id = id.trim();
        if id.is_empty() {
            return Err(SpecError::EmptyId { flag });
        }
        if !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            let id = brief(id);
            return Err(SpecError::BadId { flag, id });
        }
        let bad = |problem: Problem| SpecError::Option {
            flag,
            id: id.to_string(),
            problem,
        };
        let mut parts = rest.split(',');
        let url_text = parts.next().unwrap_or("").trim();
        let url = Url::parse(url_text).map_err(|e| {
            bad(Problem::NotAUrl {
                url: brief(url_text),
                reason: e.to_string(),
            })
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad(Problem::Scheme(brief(url.scheme()))));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(bad(Problem::NoHost));
        }
        let mut options: Vec<(String, String)> = Vec::new();
        for part in parts {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let Some((k, v)) = part.split_once('=') else {
                return Err(bad(Problem::NotKeyValue {
                    part: brief(part),
                    known,
                }));
            };
            let (k, v) = (k.trim(), v.trim());
            let Some(key) = keys.iter().find(|key| key.name == k) else {
                return Err(bad(Problem::UnknownKey {
                    key: brief(k),
                    known,
                }));
            };
            if !key.repeats && options.iter().any(|(o, _)| o == k) {
                return Err(bad(Problem::Twice(k.to_string())));
            }
            if v.is_empty() {
                return Err(bad(Problem::EmptyValue(k.to_string())));
            }
            options.push((k.to_string(), v.to_string()));
        }
        Ok(AgentSpec {
            id: id.to_string(),
            url,
            options,
        })
    }

    /// The value of a key given at most once.
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A spec clap refuses, with the flag, the agent id when known, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("{flag}: the spec is empty; expected {grammar}")]
    Empty { flag: &'static str, grammar: String },
    #[error("{flag} '{spec}': expected {grammar}")]
    NoId {
        flag: &'static str,
        spec: String,
        grammar: String,
    },
    #[error("{flag}: the agent id before '=' is empty")]
    EmptyId { flag: &'static str },
    #[error(
        "{flag} '{id}': the agent id may contain only ASCII letters, digits, '-', '_' and '.'"
    )]
    BadId { flag: &'static str, id: String },
    /// The spec of agent `id` has a bad URL or option.
    #[error("{flag} '{id}': {problem}")]
    Option {
        flag: &'static str,
        id: String,
        problem: Problem,
    },
}

/// What is wrong with a spec's URL or options.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("'{url}' is not a URL ({reason})")]
    NotAUrl { url: String, reason: String },
    #[error("the URL must be http:// or https:// (got '{0}')")]
    Scheme(String),
    #[error("the URL has no host")]
    NoHost,
    #[error("'{part}' is not KEY=VALUE (keys: {known}; values cannot contain ',')")]
    NotKeyValue { part: String, known: String },
    #[error("unknown key '{key}' (keys: {known})")]
    UnknownKey { key: String, known: String },
    #[error("'{0}' is given twice")]
    Twice(String),
    #[error("'{0}' has an empty value")]
    EmptyValue(String),
    /// A value the flag cannot use (its own rules: `--llm`'s `tools`, `--proxy`'s headers…).
    #[error("{0}")]
    Value(String),
}

impl AgentSpec {
    /// The error for a value of this spec that its flag cannot use.
    pub fn bad_value(&self, flag: &'static str, why: String) -> SpecError {
        SpecError::Option {
            flag,
            id: self.id.clone(),
            problem: Problem::Value(why),
        }
    }
}

/// A piece of user input short enough for an error message.
pub fn brief(s: &str) -> String {
    match s.char_indices().nth(40) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[Key] = &[
        Key {
            name: "model",
            repeats: false,
        },
        Key {
            name: "header",
            repeats: true,
        },
    ];

    #[test]
    fn splits_id_url_and_options() {
        let s = AgentSpec::parse(
            "--x",
            " a-1 = http://h:8/v1?q=1 , model=m ,header=A: b,header=C:d",
            KEYS,
        )
        .unwrap();
        assert_eq!(s.id, "a-1");
        assert_eq!(s.url.as_str(), "http://h:8/v1?q=1");
        assert_eq!(s.option("model"), Some("m"));
        assert_eq!(s.options.len(), 3);
    }

    #[test]
    fn refuses_what_the_grammar_does_not_allow() {
        for (spec, want) in [
            ("", "the spec is empty"),
            ("no-equals", "expected ID=URL"),
            ("=http://h/", "agent id before '=' is empty"),
            ("a/b=http://h/", "only ASCII letters"),
            ("a=ftp://h/", "http:// or https://"),
            ("a=not a url", "is not a URL"),
            ("a=http://h/,model", "not KEY=VALUE"),
            ("a=http://h/,modle=x", "unknown key 'modle'"),
            ("a=http://h/,model=x,model=y", "given twice"),
            ("a=http://h/,model=", "empty value"),
        ] {
            let err = AgentSpec::parse("--x", spec, KEYS).unwrap_err().to_string();
            assert!(err.starts_with("--x"), "{spec}: {err}");
            assert!(err.contains(want), "{spec}: {err}");
        }
        assert!(AgentSpec::parse("--x", "a=http://h/,header=A:1,header=B:2", KEYS).is_ok());
        let long = "k".repeat(500);
        let err = AgentSpec::parse("--x", &format!("a=http://h/,{long}"), KEYS)
            .unwrap_err()
            .to_string();
        assert!(!err.contains(&long), "{err}");
    }
}

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
    pub fn parse(flag: &str, spec: &str, keys: &[Key]) -> Result<Self, String> {
        let known = keys.iter().map(|k| k.name).collect::<Vec<_>>().join(", ");
        let grammar = format!("ID=URL[,KEY=VALUE]… (keys: {known})");
        let spec = spec.trim();
        if spec.is_empty() {
            return Err(format!("{flag}: the spec is empty; expected {grammar}"));
        }
        let Some((id, rest)) = spec.split_once('=') else {
            return Err(format!("{flag} '{}': expected {grammar}", brief(spec)));
        };
        let id = id.trim();
        if id.is_empty() {
            return Err(format!("{flag}: the agent id before '=' is empty"));
        }
        if !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(format!(
                "{flag} '{}': the agent id may contain only ASCII letters, digits, '-', '_' and '.'",
                brief(id)
            ));
        }
        let mut parts = rest.split(',');
        let url_text = parts.next().unwrap_or("").trim();
        let url = Url::parse(url_text)
            .map_err(|e| format!("{flag} '{id}': '{}' is not a URL ({e})", brief(url_text)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "{flag} '{id}': the URL must be http:// or https:// (got '{}')",
                brief(url.scheme())
            ));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(format!("{flag} '{id}': the URL has no host"));
        }
        let mut options: Vec<(String, String)> = Vec::new();
        for part in parts {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let Some((k, v)) = part.split_once('=') else {
                return Err(format!(
                    "{flag} '{id}': '{}' is not KEY=VALUE (keys: {known}; values cannot contain ',')",
                    brief(part)
                ));
            };
            let (k, v) = (k.trim(), v.trim());
            let Some(key) = keys.iter().find(|key| key.name == k) else {
                return Err(format!(
                    "{flag} '{id}': unknown key '{}' (keys: {known})",
                    brief(k)
                ));
            };
            if !key.repeats && options.iter().any(|(o, _)| o == k) {
                return Err(format!("{flag} '{id}': '{k}' is given twice"));
            }
            if v.is_empty() {
                return Err(format!("{flag} '{id}': '{k}' has an empty value"));
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
            let err = AgentSpec::parse("--x", spec, KEYS).unwrap_err();
            assert!(err.starts_with("--x"), "{spec}: {err}");
            assert!(err.contains(want), "{spec}: {err}");
        }
        assert!(AgentSpec::parse("--x", "a=http://h/,header=A:1,header=B:2", KEYS).is_ok());
        let long = "k".repeat(500);
        let err = AgentSpec::parse("--x", &format!("a=http://h/,{long}"), KEYS).unwrap_err();
        assert!(!err.contains(&long), "{err}");
    }
}

//! The `--llm` spec: `ID=BASE_URL[,model=NAME][,key-env=VAR][,key=KEY][,tools=demo|none]` (the
//! grammar of [`crate::server::agents::spec`]), parsed by clap so a bad configuration stops
//! the server at argument parsing, not a run.

use std::fmt;
use std::str::FromStr;

use reqwest::Url;

use crate::server::agents::spec::{brief, AgentSpec, Key, SpecError};

/// Which tools the server itself runs for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendTools {
    /// The demo agent's local tools (`calculate`, `convert_units`).
    Demo,
    None,
}

/// A validated `--llm` spec.
#[derive(Clone, PartialEq)]
pub struct LlmSpec {
    pub id: String,
    /// Without a trailing `/`; the endpoint is `{base_url}/chat/completions`.
    pub base_url: String,
    /// Absent: the request carries no `model` (llama.cpp and vLLM then use the model they serve).
    pub model: Option<String>,
    pub key: Option<String>,
    pub tools: BackendTools,
}

/// Never prints the key: specs end up in logs and error messages.
impl fmt::Debug for LlmSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmSpec")
            .field("id", &self.id)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "[redacted]"))
            .field("tools", &self.tools)
            .finish()
    }
}

/// The option keys of `--llm`.
const KEYS: &[Key] = &[
    Key {
        name: "model",
        repeats: false,
    },
    Key {
        name: "key-env",
        repeats: false,
    },
    Key {
        name: "key",
        repeats: false,
    },
    Key {
        name: "tools",
        repeats: false,
    },
];

/// `--llm SPEC` as clap parses it: a bad spec is an argument error (`key-env` is read from
/// the process environment now).
impl FromStr for LlmSpec {
    type Err = SpecError;

    fn from_str(spec: &str) -> Result<Self, SpecError> {
        LlmSpec::parse(spec, |var| std::env::var(var).ok())
    }
}

impl LlmSpec {
    /// Parse a spec, reading `key-env` from the environment through `env`.
    pub fn parse(spec: &str, env: impl Fn(&str) -> Option<String>) -> Result<Self, SpecError> {
        let spec = AgentSpec::parse("--llm", spec, KEYS)?;
        let bad = |why: String| spec.bad_value("--llm", why);
        let url = &spec.url;
        if url.query().is_some() || url.fragment().is_some() {
            return Err(bad(
                "the base URL must not have a query or fragment (it ends before /chat/completions)"
                    .into(),
            ));
        }
        let key = match (spec.option("key"), spec.option("key-env")) {
            (Some(_), Some(_)) => return Err(bad("give either key or key-env, not both".into())),
            (Some(k), None) => Some(k.to_string()),
            (None, Some(var)) => match env(var) {
                Some(k) if !k.trim().is_empty() => Some(k.trim().to_string()),
                _ => {
                    return Err(bad(format!(
                        "the environment variable {} (key-env) is not set or empty",
                        brief(var)
                    )))
                }
            },
            (None, None) => None,
        };
        let tools = match spec.option("tools") {
            None | Some("demo") => BackendTools::Demo,
            Some("none") => BackendTools::None,
            Some(other) => {
                return Err(bad(format!(
                    "tools must be 'demo' or 'none' (got '{}')",
                    brief(other)
                )))
            }
        };
        Ok(LlmSpec {
            base_url: url.as_str().trim_end_matches('/').to_string(),
            model: spec.option("model").map(str::to_string),
            key,
            tools,
            id: spec.id,
        })
    }

    /// `POST` target of every request.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }

    /// The host (and port) of the base URL, for descriptions.
    pub fn host(&self) -> String {
        Url::parse(&self.base_url)
            .ok()
            .and_then(|u| {
                let host = u.host_str()?.to_string();
                Some(match u.port() {
                    Some(p) => format!("{host}:{p}"),
                    None => host,
                })
            })
            .unwrap_or_else(|| self.base_url.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(spec: &str) -> Result<LlmSpec, String> {
        LlmSpec::parse(spec, |v| (v == "SET_KEY").then(|| "sk-secret".to_string()))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn full_spec() {
        let s =
            parse("openai=https://api.openai.com/v1/,model=gpt-4o-mini,key-env=SET_KEY,tools=none")
                .unwrap();
        assert_eq!(s.id, "openai");
        assert_eq!(s.base_url, "https://api.openai.com/v1");
        assert_eq!(s.endpoint(), "https://api.openai.com/v1/chat/completions");
        assert_eq!(s.model.as_deref(), Some("gpt-4o-mini"));
        assert_eq!(s.key.as_deref(), Some("sk-secret"));
        assert_eq!(s.tools, BackendTools::None);
        assert_eq!(s.host(), "api.openai.com");
        assert!(!format!("{s:?}").contains("sk-secret"));
    }

    #[test]
    fn minimal_spec_defaults() {
        let s = parse(" ollama = http://127.0.0.1:11434/v1 ").unwrap();
        assert_eq!(s.id, "ollama");
        assert_eq!(s.model, None);
        assert_eq!(s.key, None);
        assert_eq!(s.tools, BackendTools::Demo);
        assert_eq!(s.host(), "127.0.0.1:11434");
        let s = parse("x=http://h/v1,key=abc,tools=demo").unwrap();
        assert_eq!(s.key.as_deref(), Some("abc"));
    }

    #[test]
    fn rejects_bad_specs() {
        for (spec, want) in [
            ("no-equals", "expected ID=URL"),
            ("=http://h/v1", "id before '=' is empty"),
            ("a/b=http://h/v1", "only ASCII letters"),
            ("a=ftp://h/v1", "http:// or https://"),
            ("a=not a url", "is not a URL"),
            ("a=http://h/v1?x=1", "query or fragment"),
            ("a=http://h/v1,modle=x", "unknown key 'modle'"),
            ("a=http://h/v1,model", "not KEY=VALUE"),
            ("a=http://h/v1,model=x,model=y", "given twice"),
            ("a=http://h/v1,model=", "empty value"),
            (
                "a=http://h/v1,key-env=UNSET_VAR",
                "UNSET_VAR (key-env) is not set",
            ),
            ("a=http://h/v1,key=k,key-env=SET_KEY", "not both"),
            ("a=http://h/v1,tools=all", "tools must be"),
        ] {
            let err = parse(spec).unwrap_err().to_string();
            assert!(err.contains(want), "{spec}: {err}");
        }
    }

    #[test]
    fn errors_do_not_echo_long_values() {
        let key = "sk-0123456789012345678901234567890123456789012345678901234567890";
        let err = parse(&format!("a=http://h/v1,{key}"))
            .unwrap_err()
            .to_string();
        assert!(!err.contains(key), "{err}");
    }
}

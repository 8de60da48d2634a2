//! The `--proxy` spec: `ID=URL[,header=NAME:VALUE][,header-env=NAME:VAR][,transport=sse|proto]`,
//! parsed and checked once at startup so a bad spec stops the server instead of failing every
//! run.

use std::str::FromStr;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::Url;

use crate::server::agents::spec::{brief, AgentSpec, Key, SpecError};

/// A parsed `--proxy` spec.
#[derive(Debug, Clone)]
pub struct ProxySpec {
    pub id: String,
    pub url: Url,
    /// Configured headers; every value is marked sensitive so it never shows in debug output.
    pub headers: HeaderMap,
    /// How to ask the foreign agent for its events.
    pub transport: Transport,
}

/// The encoding the proxy asks a foreign agent for (`transport=`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Transport {
    /// `text/event-stream` (the default; every AG-UI server speaks it).
    #[default]
    Sse,
    /// The protobuf binding (`application/vnd.ag-ui.event+proto`), SSE still admitted: a
    /// server without protobuf answers SSE, which the proxy reads as usual.
    Proto,
}

/// Headers the proxy sets itself (or that describe the connection): configuring one would make
/// the request lie about its body or break the SSE negotiation.
const RESERVED: [&str; 7] = [
    "accept",
    "content-type",
    "content-length",
    "transfer-encoding",
    "connection",
    "host",
    "te",
];

/// The option keys of `--proxy`.
const KEYS: &[Key] = &[
    Key {
        name: "header",
        repeats: true,
    },
    Key {
        name: "header-env",
        repeats: true,
    },
    Key {
        name: "transport",
        repeats: false,
    },
];

/// `--proxy SPEC` as clap parses it (`header-env` variables are read from the process
/// environment now, so a missing one is an argument error rather than a failure of every run).
impl FromStr for ProxySpec {
    type Err = SpecError;

    fn from_str(spec: &str) -> Result<Self, SpecError> {
        parse(spec, |var| std::env::var(var).ok())
    }
}

/// Parse a spec, reading `header-env` variables through `env` (the process environment in
/// production). Error messages name variables and headers, never their values.
pub fn parse(spec: &str, env: impl Fn(&str) -> Option<String>) -> Result<ProxySpec, SpecError> {
    let spec = AgentSpec::parse("--proxy", spec, KEYS)?;
    let bad = |why: String| spec.bad_value("--proxy", why);
    let mut headers = HeaderMap::new();
    let mut transport = Transport::Sse;
    for (key, value) in &spec.options {
        let (name, value) = match key.as_str() {
            "transport" => {
                transport = match value.trim().to_ascii_lowercase().as_str() {
                    "sse" => Transport::Sse,
                    "proto" | "protobuf" => Transport::Proto,
                    _ => {
                        return Err(bad(format!(
                            "'transport=' is sse or proto, not '{}'",
                            brief(value)
                        )))
                    }
                };
                continue;
            }
            "header" => {
                let (name, value) = value
                    .split_once(':')
                    .ok_or_else(|| bad("'header=' needs NAME:VALUE".into()))?;
                (name.trim(), value.trim().to_string())
            }
            _ => {
                let (name, var) = value
                    .split_once(':')
                    .ok_or_else(|| bad("'header-env=' needs NAME:VARIABLE".into()))?;
                let var = var.trim();
                let value = env(var).ok_or_else(|| {
                    bad(format!(
                        "environment variable {} (for header {}) is not set",
                        brief(var),
                        brief(name.trim())
                    ))
                })?;
                (name.trim(), value.trim().to_string())
            }
        };
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| bad(format!("'{}' is not a valid header name", brief(name))))?;
        if RESERVED.contains(&header.as_str()) {
            return Err(bad(format!(
                "the proxy sets header '{name}' itself; it cannot be configured"
            )));
        }
        let mut value = HeaderValue::from_str(&value)
            .map_err(|_| bad(format!("the value of header '{name}' is not valid in HTTP")))?;
        value.set_sensitive(true);
        headers.append(header, value);
    }
    Ok(ProxySpec {
        id: spec.id,
        url: spec.url,
        headers,
        transport,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn parses_id_url_and_headers() {
        let env = |v: &str| (v == "TOKEN").then(|| "Bearer s3cret".to_string());
        let s = parse(
            " crew = http://127.0.0.1:8000/agent?x=1 ,header=X-Team: blue ,header-env=Authorization:TOKEN",
            env,
        )
        .unwrap();
        assert_eq!(s.id, "crew");
        assert_eq!(s.url.as_str(), "http://127.0.0.1:8000/agent?x=1");
        assert_eq!(s.headers["x-team"], "blue");
        assert_eq!(s.headers["authorization"], "Bearer s3cret");
        assert!(s.headers["authorization"].is_sensitive());
        assert!(!format!("{:?}", s.headers).contains("s3cret"));
        assert_eq!(s.transport, Transport::Sse);
    }

    #[test]
    fn the_transport_is_sse_or_proto() {
        let s = parse("a=http://h/,transport=proto", no_env).unwrap();
        assert_eq!(s.transport, Transport::Proto);
        let s = parse("a=http://h/, transport = SSE", no_env).unwrap();
        assert_eq!(s.transport, Transport::Sse);
        let e = parse("a=http://h/,transport=grpc", no_env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("sse or proto"), "{e}");
        let e = parse("a=http://h/,transport=proto,transport=sse", no_env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("transport"), "{e}");
    }

    #[test]
    fn a_missing_variable_is_an_error_that_names_it_but_no_value() {
        let e = parse("a=http://h/,header-env=Authorization:NOPE_VAR", no_env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("NOPE_VAR") && e.contains("Authorization"), "{e}");
    }

    #[test]
    fn bad_specs_are_refused() {
        for (spec, needle) in [
            ("nourl", "expected ID=URL"),
            ("=http://h/", "agent id"),
            ("a b=http://h/", "agent id"),
            ("a=ftp://h/", "http:// or https://"),
            ("a=not a url", "not a URL"),
            ("a=http://h/,colour=red", "unknown key 'colour'"),
            ("a=http://h/,header=NoColon", "NAME:VALUE"),
            ("a=http://h/,header", "not KEY=VALUE"),
            ("a=http://h/,header=Bad Name:x", "not a valid header name"),
            (
                "a=http://h/,header=Accept:text/html",
                "sets header 'Accept' itself",
            ),
            ("a=http://h/,header=X:a\u{7}b", "not valid in HTTP"),
        ] {
            let e = parse(spec, no_env).unwrap_err().to_string();
            assert!(e.contains(needle), "{spec}: {e}");
        }
    }
}

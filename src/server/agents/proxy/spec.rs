//! The `--proxy` spec: `ID=URL[,header=NAME:VALUE][,header-env=NAME:VAR]`, parsed and checked
//! once at startup so a bad spec stops the server instead of failing every run.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::Url;

/// A parsed `--proxy` spec.
#[derive(Debug, Clone)]
pub struct ProxySpec {
    pub id: String,
    pub url: Url,
    /// Configured headers; every value is marked sensitive so it never shows in debug output.
    pub headers: HeaderMap,
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

/// Parse a spec, reading `header-env` variables through `env` (the process environment in
/// production). Error messages name variables and headers, never their values.
pub fn parse(spec: &str, env: impl Fn(&str) -> Option<String>) -> Result<ProxySpec, String> {
    let spec = spec.trim();
    let (id, rest) = spec
        .split_once('=')
        .ok_or_else(|| format!("--proxy '{spec}': expected ID=URL[,header=NAME:VALUE]…"))?;
    let id = id.trim();
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        return Err(format!(
            "--proxy: agent id '{id}' must be non-empty and use only letters, digits, '-', '_' and '.'"
        ));
    }
    let mut parts = rest.split(',');
    let url_text = parts.next().unwrap_or("").trim();
    let url = Url::parse(url_text)
        .map_err(|e| format!("--proxy {id}: '{url_text}' is not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!(
            "--proxy {id}: the URL must be http:// or https:// with a host"
        ));
    }
    let mut headers = HeaderMap::new();
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let (name, value) = match key.trim() {
            "header" => {
                let (name, value) = value.split_once(':').ok_or_else(|| {
                    format!("--proxy {id}: 'header=' needs NAME:VALUE")
                })?;
                (name.trim(), value.trim().to_string())
            }
            "header-env" => {
                let (name, var) = value.split_once(':').ok_or_else(|| {
                    format!("--proxy {id}: 'header-env=' needs NAME:VARIABLE")
                })?;
                let var = var.trim();
                let value = env(var).ok_or_else(|| {
                    format!(
                        "--proxy {id}: environment variable {var} (for header {}) is not set",
                        name.trim()
                    )
                })?;
                (name.trim(), value.trim().to_string())
            }
            other => {
                return Err(format!(
                    "--proxy {id}: unknown option '{other}' (expected header= or header-env=; URLs and values cannot contain ',')"
                ))
            }
        };
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("--proxy {id}: '{name}' is not a valid header name"))?;
        if RESERVED.contains(&header.as_str()) {
            return Err(format!(
                "--proxy {id}: the proxy sets header '{name}' itself; it cannot be configured"
            ));
        }
        let mut value = HeaderValue::from_str(&value).map_err(|_| {
            format!("--proxy {id}: the value of header '{name}' is not valid in HTTP")
        })?;
        value.set_sensitive(true);
        headers.append(header, value);
    }
    Ok(ProxySpec {
        id: id.to_string(),
        url,
        headers,
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
    }

    #[test]
    fn a_missing_variable_is_an_error_that_names_it_but_no_value() {
        let e = parse("a=http://h/,header-env=Authorization:NOPE_VAR", no_env).unwrap_err();
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
            ("a=http://h/,colour=red", "unknown option 'colour'"),
            ("a=http://h/,header=NoColon", "NAME:VALUE"),
            ("a=http://h/,header=Bad Name:x", "not a valid header name"),
            (
                "a=http://h/,header=Accept:text/html",
                "sets header 'Accept' itself",
            ),
            ("a=http://h/,header=X:a\u{7}b", "not valid in HTTP"),
        ] {
            let e = parse(spec, no_env).unwrap_err();
            assert!(e.contains(needle), "{spec}: {e}");
        }
    }
}

//! The `--mcp` spec: `ID=stdio:COMMAND [ARG]…` (a child process speaking MCP on its standard
//! input and output) or `ID=http(s)://…` (a streamable-HTTP MCP endpoint). Parsed by clap, so a
//! bad spec stops the server at argument parsing with the reason.
//!
//! The id becomes part of the tool names the model sees (`mcp__{ID}__{tool}`), which chat APIs
//! restrict to `[A-Za-z0-9_-]{1,64}`: it is kept to ASCII letters, digits, `-` and single `_`
//! (a `__` would make the name ambiguous), at most [`MAX_ID_LEN`] characters.

use std::fmt;
use std::str::FromStr;

use reqwest::Url;

/// Longest server id.
pub const MAX_ID_LEN: usize = 32;
/// Most arguments of a stdio command (the command included).
pub const MAX_ARGS: usize = 64;

/// How the server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process: the program and its arguments (split at blanks; no shell, no quoting).
    Stdio { program: String, args: Vec<String> },
    /// A streamable-HTTP endpoint.
    Http(Url),
}

/// A validated `--mcp` spec.
#[derive(Clone, PartialEq, Eq)]
pub struct McpSpec {
    pub id: String,
    pub transport: Transport,
}

/// Arguments and URLs may carry secrets (tokens in a query, `--api-key`): debug output shows
/// only the program or the host.
impl fmt::Debug for McpSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpSpec")
            .field("id", &self.id)
            .field("transport", &self.describe())
            .finish()
    }
}

/// Why a `--mcp` spec was refused. Messages quote user input only briefly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpSpecError {
    #[error("--mcp: expected ID=stdio:COMMAND [ARG]… or ID=http(s)://HOST/PATH, got '{0}'")]
    Grammar(String),
    #[error("--mcp: the id '{0}' must be 1..={MAX_ID_LEN} ASCII letters, digits, '-' or '_' (no '__', which separates the parts of a tool name)")]
    BadId(String),
    #[error("--mcp {id}: {why}")]
    Bad { id: String, why: String },
}

impl FromStr for McpSpec {
    type Err = McpSpecError;

    fn from_str(spec: &str) -> Result<Self, McpSpecError> {
        let spec = spec.trim();
        let Some((id, rest)) = spec.split_once('=') else {
            return Err(McpSpecError::Grammar(brief(spec)));
        };
        let id = id.trim();
        let id_ok = !id.is_empty()
            && id.len() <= MAX_ID_LEN
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            && !id.contains("__");
        if !id_ok {
            return Err(McpSpecError::BadId(brief(id)));
        }
        let bad = |why: String| McpSpecError::Bad {
            id: id.to_string(),
            why,
        };
        let rest = rest.trim();
        let transport = if let Some(command) = rest.strip_prefix("stdio:") {
            let mut words = command.split_whitespace().map(str::to_string);
            let Some(program) = words.next() else {
                return Err(bad("stdio: needs a command, e.g. stdio:npx -y @modelcontextprotocol/server-everything".into()));
            };
            let args: Vec<String> = words.collect();
            if args.len() + 1 > MAX_ARGS {
                return Err(bad(format!("at most {MAX_ARGS} words in a stdio command")));
            }
            Transport::Stdio { program, args }
        } else if rest.starts_with("http://") || rest.starts_with("https://") {
            let url = Url::parse(rest)
                .map_err(|e| bad(format!("'{}' is not a URL ({e})", brief(rest))))?;
            if url.host_str().is_none_or(str::is_empty) {
                return Err(bad("the URL has no host".into()));
            }
            if url.fragment().is_some() {
                return Err(bad("the URL must not have a fragment".into()));
            }
            Transport::Http(url)
        } else {
            return Err(McpSpecError::Grammar(brief(spec)));
        };
        Ok(McpSpec {
            id: id.to_string(),
            transport,
        })
    }
}

impl McpSpec {
    /// What the log says about the server: the program, or the URL's scheme, host and port.
    pub fn describe(&self) -> String {
        match &self.transport {
            Transport::Stdio { program, .. } => format!("stdio:{program}"),
            Transport::Http(url) => match (url.host_str(), url.port()) {
                (Some(h), Some(p)) => format!("{}://{h}:{p}", url.scheme()),
                (Some(h), None) => format!("{}://{h}", url.scheme()),
                _ => url.scheme().to_string(),
            },
        }
    }
}

/// User input kept short enough for an error message.
fn brief(s: &str) -> String {
    match s.char_indices().nth(60) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stdio_and_http() {
        let s: McpSpec = "everything=stdio:npx -y  @modelcontextprotocol/server-everything stdio"
            .parse()
            .unwrap();
        assert_eq!(s.id, "everything");
        assert_eq!(
            s.transport,
            Transport::Stdio {
                program: "npx".into(),
                args: vec![
                    "-y".into(),
                    "@modelcontextprotocol/server-everything".into(),
                    "stdio".into()
                ]
            }
        );
        let s: McpSpec = "docs=https://mcp.example.com/mcp?token=secret"
            .parse()
            .unwrap();
        assert!(matches!(&s.transport, Transport::Http(u) if u.path() == "/mcp"));
        assert!(!format!("{s:?}").contains("secret"));
    }

    #[test]
    fn refuses_bad_specs() {
        let too_long = format!("{}=stdio:x", "a".repeat(MAX_ID_LEN + 1));
        let many = format!("a=stdio:{}", "x ".repeat(MAX_ARGS + 1));
        for (spec, want) in [
            ("", "expected ID="),
            ("noequals", "expected ID="),
            ("=stdio:x", "must be 1..="),
            ("a b=stdio:x", "must be 1..="),
            ("a__b=stdio:x", "no '__'"),
            ("a.b=stdio:x", "must be 1..="),
            (too_long.as_str(), "must be 1..="),
            ("a=stdio:", "needs a command"),
            ("a=stdio:   ", "needs a command"),
            (many.as_str(), "at most 64 words"),
            ("a=ftp://x/", "expected ID="),
            ("a=http://", "not a URL"),
            ("a=http://h/mcp#x", "fragment"),
            ("a=npx server", "expected ID="),
        ] {
            let err = spec.parse::<McpSpec>().unwrap_err().to_string();
            assert!(err.contains(want), "{spec}: {err}");
        }
    }
}

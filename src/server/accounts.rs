//! Accounts (`--auth-token`, `--users`), browser sessions and the `hash-token` subcommand.
//!
//! Tokens are never kept: an account is a name and the SHA-256 of its token, and a presented
//! token is hashed and compared with every account in constant time, so neither the comparison
//! nor the number of accounts checked depends on how much of a token was right. A browser signs
//! in once with a form; the server answers with a random 256-bit session id in an `HttpOnly;
//! SameSite=Strict` cookie and keeps the id → user table in memory (a restart signs everyone
//! out, which is the safe way to fail). API clients send `Authorization: Bearer <token>`.

use std::collections::HashMap;
use std::io::Read;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{header, HeaderMap};
use sha2::{Digest, Sha256};

use super::config::HashTokenArgs;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "agui_session";
/// The account name of the single-token mode (`--auth-token`).
pub const TOKEN_USER: &str = "default";
/// How long a browser session lasts after sign-in.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);
/// Most sessions kept at once; signing in past it ends the oldest session. Bounds what an
/// attacker holding a valid token can make the server keep by signing in over and over.
pub const MAX_SESSIONS: usize = 10_000;

/// The user a request acts for: threads, runs, observers and approvals belong to the user who
/// created them. Ownership compares names; `""` is the anonymous user of a server without
/// authentication.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct User(pub Arc<str>);

impl User {
    /// The only user of a server without authentication.
    pub fn anonymous() -> Self {
        User(Arc::from(""))
    }

    pub fn name(&self) -> &str {
        &self.0
    }

    pub fn is(&self, owner: &str) -> bool {
        *self.0 == *owner
    }
}

struct Account {
    name: Arc<str>,
    hash: [u8; 32],
}

struct Session {
    user: User,
    created: Instant,
}

/// The accounts and the browser sessions.
pub struct Auth {
    /// None: no authentication (everyone is [`User::anonymous`]).
    accounts: Option<Vec<Account>>,
    sessions: Mutex<HashMap<String, Session>>,
}

impl Auth {
    /// No authentication.
    pub fn open() -> Self {
        Auth {
            accounts: None,
            sessions: Mutex::default(),
        }
    }

    /// The accounts of `--auth-token` (one user, [`TOKEN_USER`]) and of the `--users` file's
    /// text; neither: no authentication.
    pub fn new(token: Option<&str>, users: Option<&str>) -> Result<Self, AuthError> {
        let mut accounts = Vec::new();
        if let Some(text) = users {
            accounts = parse_users(text)?;
        }
        // An empty token is a secret that was not set (`AGUI_AUTH_TOKEN=` in a unit file):
        // refusing to start beats serving everything to everyone.
        if token.is_some_and(|t| t.trim().is_empty()) {
            return Err(AuthError::EmptyToken);
        }
        if let Some(token) = token {
            if accounts.iter().any(|a| &*a.name == TOKEN_USER) {
                return Err(AuthError::TokenUserListed);
            }
            accounts.push(Account {
                name: TOKEN_USER.into(),
                hash: sha256(token.as_bytes()),
            });
        }
        if users.is_none() && accounts.is_empty() {
            return Ok(Auth::open());
        }
        Ok(Auth {
            accounts: Some(accounts),
            sessions: Mutex::default(),
        })
    }

    /// Whether requests need credentials.
    pub fn enabled(&self) -> bool {
        self.accounts.is_some()
    }

    /// The user whose token this is.
    pub fn user_of_token(&self, token: &str) -> Option<User> {
        let accounts = self.accounts.as_ref()?;
        let hash = sha256(token.as_bytes());
        // Every account is compared, whatever matched: the time taken says nothing.
        let mut found = None;
        for a in accounts {
            if constant_time_eq(&hash, &a.hash) {
                found = Some(User(a.name.clone()));
            }
        }
        found.filter(|_| !token.is_empty())
    }

    /// A new session for `user`: its id, for the cookie.
    pub fn create_session(&self, user: User) -> String {
        let id = random_hex();
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        sessions.retain(|_, s| now.duration_since(s.created) < SESSION_LIFETIME);
        if sessions.len() >= MAX_SESSIONS {
            if let Some(oldest) = sessions
                .iter()
                .min_by_key(|(_, s)| s.created)
                .map(|(k, _)| k.clone())
            {
                sessions.remove(&oldest);
            }
        }
        sessions.insert(id.clone(), Session { user, created: now });
        id
    }

    /// The user of a live session.
    pub fn user_of_session(&self, id: &str) -> Option<User> {
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        // The map lookup hashes the id first: its timing reveals nothing about stored ids.
        let s = sessions.get(id)?;
        (s.created.elapsed() < SESSION_LIFETIME).then(|| s.user.clone())
    }

    pub fn end_session(&self, id: &str) {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }

    /// The user a request's credentials name: its bearer token, else its session cookie.
    pub fn user_of_request(&self, headers: &HeaderMap) -> Option<User> {
        if let Some(token) = bearer(headers) {
            return self.user_of_token(token);
        }
        self.user_of_session(&session_cookie(headers)?)
    }
}

/// Parse a users file: `NAME:sha256:HEX` per line, `#` comments and blank lines ignored.
fn parse_users(text: &str) -> Result<Vec<Account>, AuthError> {
    let mut accounts: Vec<Account> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| AuthError::UsersLine {
            line: n + 1,
            why: why.to_string(),
        };
        let mut parts = line.splitn(3, ':');
        let (name, algo, hex) = match (parts.next(), parts.next(), parts.next()) {
            (Some(n), Some(a), Some(h)) => (n.trim(), a.trim(), h.trim()),
            _ => return Err(bad("expected NAME:sha256:HEX")),
        };
        check_name(name).map_err(|e| bad(&e.to_string()))?;
        if algo != "sha256" {
            return Err(bad("only sha256 hashes are supported"));
        }
        let hash = parse_hex32(hex).ok_or_else(|| bad("the hash must be 64 hex digits"))?;
        if accounts.iter().any(|a| &*a.name == name) {
            return Err(bad(&format!("'{name}' is listed twice")));
        }
        accounts.push(Account {
            name: name.into(),
            hash,
        });
    }
    Ok(accounts)
}

fn check_name(name: &str) -> Result<(), AuthError> {
    if name.is_empty() || name.len() > 64 {
        return Err(AuthError::NameLength);
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.@+".contains(c))
    {
        return Err(AuthError::NameCharacters(name.to_string()));
    }
    Ok(())
}

/// Why the accounts (`--auth-token`, `--users`) cannot be used: the server does not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("--auth-token is empty: set a token, or leave the option out")]
    EmptyToken,
    #[error("the users file names '{TOKEN_USER}', the user of --auth-token")]
    TokenUserListed,
    #[error("users file, line {line}: {why}")]
    UsersLine { line: usize, why: String },
    #[error("a user name is 1 to 64 characters")]
    NameLength,
    #[error("'{0}': a user name may use letters, digits and - _ . @ +")]
    NameCharacters(String),
}

fn parse_hex32(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 256 bits from the system's random source (two v4 UUIDs' bytes: 244 random bits, the
/// version nibbles aside), as hex.
fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    bytes[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    bytes[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    to_hex(&bytes)
}

pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

pub fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == SESSION_COOKIE)
        .map(|(_, v)| v.trim().to_string())
}

// ---- `agui-studio hash-token NAME` ----

/// Print the users-file line for NAME: the token read from standard input (its first line), or
/// with `--generate` a fresh random one, printed on standard error to hand to the user.
pub fn hash_token_command(args: HashTokenArgs) -> ExitCode {
    if let Err(e) = check_name(&args.name) {
        eprintln!("agui-studio hash-token: {e}");
        return ExitCode::from(2);
    }
    let token = if args.generate {
        let t = random_hex();
        eprintln!(
            "token for {} (give it to them; it is not stored): {t}",
            args.name
        );
        t
    } else {
        let mut input = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut input) {
            eprintln!("agui-studio hash-token: cannot read the token: {e}");
            return ExitCode::from(2);
        }
        let t = input.lines().next().unwrap_or("").trim().to_string();
        if t.is_empty() {
            eprintln!("agui-studio hash-token: no token on standard input (or use --generate)");
            return ExitCode::from(2);
        }
        t
    };
    println!("{}", users_line(&args.name, &token));
    ExitCode::SUCCESS
}

/// The users-file line for a user and token.
pub fn users_line(name: &str, token: &str) -> String {
    format!("{name}:sha256:{}", to_hex(&sha256(token.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_file_and_tokens() {
        let text = format!(
            "# team\n\n{}\n  {}  \n",
            users_line("alice", "a-token"),
            users_line("bob", "b-token")
        );
        let auth = Auth::new(None, Some(&text)).unwrap();
        assert!(auth.enabled());
        assert_eq!(auth.user_of_token("a-token").unwrap().name(), "alice");
        assert_eq!(auth.user_of_token("b-token").unwrap().name(), "bob");
        assert!(auth.user_of_token("c-token").is_none());
        assert!(auth.user_of_token("").is_none());
        for bad in [
            "alice",
            "alice:md5:00",
            "alice:sha256:zz",
            ":sha256:0000000000000000000000000000000000000000000000000000000000000000",
            "a b:sha256:0000000000000000000000000000000000000000000000000000000000000000",
        ] {
            assert!(Auth::new(None, Some(bad)).is_err(), "{bad}");
        }
        let twice = format!("{}\n{}", users_line("a", "x"), users_line("a", "y"));
        assert!(Auth::new(None, Some(&twice)).is_err());
    }

    #[test]
    fn single_token_and_open_modes() {
        let auth = Auth::new(Some("sesame"), None).unwrap();
        assert_eq!(auth.user_of_token("sesame").unwrap().name(), TOKEN_USER);
        assert!(auth.user_of_token("sesam").is_none());
        assert!(!Auth::new(None, None).unwrap().enabled());
        assert!(
            Auth::new(Some(""), None).is_err(),
            "an empty token is refused"
        );
        assert!(
            Auth::new(Some("  "), None).is_err(),
            "a blank token is refused"
        );
    }
}

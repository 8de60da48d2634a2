//! Why the server does not start: every failure of turning the arguments into a running server
//! (agents, accounts, database), each with the argument or file it comes from.

use super::accounts::AuthError;
use super::store::StoreError;

/// Why the server cannot start with the arguments it was given.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("unknown agent '{0}' (available: demo)")]
    UnknownAgent(String),
    #[error("{flag} '{id}': cannot create the HTTP client: {source}")]
    HttpClient {
        flag: &'static str,
        id: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("cannot read the users file '{path}': {source}")]
    UsersFile {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Auth(#[from] AuthError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot recover the database '{path}': {source}")]
    Recover {
        path: String,
        #[source]
        source: StoreError,
    },
}

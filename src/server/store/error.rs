//! The store's errors: opening, locking and migrating the database, and its queries.

/// Why the database could not be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another process holds the database's lock file.
    #[error(
        "the database '{path}' is in use by {holder} (another agui-studio?); give each server its own --db"
    )]
    InUse { path: String, holder: String },
    /// The lock file could not be created or locked.
    #[error("cannot lock '{path}': {source}")]
    Lock {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot open the database '{path}': {source}")]
    Open {
        path: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("cannot migrate the database '{path}': {source}")]
    Migrate {
        path: String,
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    /// A query failed.
    #[error("database error: {0}")]
    Query(#[from] sqlx::Error),
    /// A read answered for several callers at once failed (see `owners`).
    #[error("database error: {0}")]
    Read(String),
    /// A stored row is not what this server writes.
    #[error("damaged database row: {0}")]
    Corrupt(String),
}

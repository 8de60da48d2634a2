//! Helpers for tests that need a database file or a writer held back.

use std::path::PathBuf;

use sqlx::Connection;

use super::Store;

/// An empty directory of its own for a test's database files (named by `tag`; the caller
/// removes it).
pub(crate) fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agui-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh store on a file in a directory of its own (named by `tag`; the caller removes it),
/// with the file's path.
pub(crate) async fn fresh_store(tag: &str) -> (Store, PathBuf, String) {
    let dir = fresh_dir(tag);
    let path = dir.join("studio.db").to_str().unwrap().to_string();
    (Store::open(&path).await.unwrap(), dir, path)
}

/// Another program's connection to the database at `path`, holding its write lock until it
/// rolls back or closes: the store's writer waits for it (up to its busy timeout).
pub(crate) async fn hold_write_lock(path: &str) -> sqlx::SqliteConnection {
    let mut other = sqlx::SqliteConnection::connect(&format!("sqlite://{path}"))
        .await
        .unwrap();
    sqlx::query("BEGIN EXCLUSIVE")
        .execute(&mut other)
        .await
        .unwrap();
    other
}

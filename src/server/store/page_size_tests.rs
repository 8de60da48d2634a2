//! A database this server creates has [`PAGE_SIZE`] pages; one created with other pages (by an
//! earlier version, or by hand) keeps them and opens as before.

use sqlx::{Connection, Row};

use super::testing::{fresh_dir, fresh_store};
use super::{Store, PAGE_SIZE};

async fn page_size(store: &Store) -> u32 {
    sqlx::query("PRAGMA page_size")
        .fetch_one(&store.pool)
        .await
        .unwrap()
        .get::<i64, _>(0) as u32
}

#[tokio::test]
async fn a_new_database_has_the_larger_pages() {
    let (store, dir, _) = fresh_store("pages-new").await;
    assert_eq!(page_size(&store).await, PAGE_SIZE);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_database_with_other_pages_keeps_them() {
    let dir = fresh_dir("pages-old");
    let path = dir.join("studio.db").to_str().unwrap().to_string();
    // Made as SQLite makes a database by default, in WAL mode, with a table in it.
    let mut old = sqlx::SqliteConnection::connect(&format!("sqlite://{path}?mode=rwc"))
        .await
        .unwrap();
    for sql in [
        "PRAGMA page_size = 4096",
        "PRAGMA journal_mode = WAL",
        "CREATE TABLE before_us (x)",
    ] {
        sqlx::query(sql).execute(&mut old).await.unwrap();
    }
    old.close().await.unwrap();

    let store = Store::open(&path).await.unwrap();
    assert_eq!(page_size(&store).await, 4096);
    let check: String = sqlx::query("PRAGMA integrity_check")
        .fetch_one(&store.pool)
        .await
        .unwrap()
        .get(0);
    assert_eq!(check, "ok");
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

//! Handing SQLite's memory back after a crowd (called by `server::trim` when many connections
//! have left).

use std::sync::atomic::Ordering;
use std::time::Duration;

use sqlx::SqlitePool;
use tokio::sync::oneshot;

use super::{Op, Store, POOL_SIZE};

/// How long a release waits for the writer to hand its cache back.
const WRITER_PATIENCE: Duration = Duration::from_secs(5);

impl Store {
    /// Hand back what the writer's connection and the pool's idle ones hold, by closing them:
    /// their page caches (the writer's may hold up to
    /// [`WRITER_CACHE_KIB`](super::WRITER_CACHE_KIB) once a crowd's runs have been written, the
    /// others [`READER_CACHE_KIB`](super::READER_CACHE_KIB); SQLite keeps a cache full until its
    /// connection closes), their parsed schemas and prepared statements, their threads. The
    /// next read or write opens a connection again (a millisecond or two) and reads its pages
    /// back from the file (or the system's cache). A pooled connection in use is left alone;
    /// the writer closes its own after its current transaction (waited for at most
    /// [`WRITER_PATIENCE`], and not at all when its urgent queue is full); an in-memory
    /// database, which lives in its one connection, is not touched.
    pub async fn release_memory(&self) {
        if self.in_memory {
            return;
        }
        self.shrink_writer.store(true, Ordering::Release);
        // A flush wakes an idle writer; it is acknowledged once the cache is handed back.
        let (tx, rx) = oneshot::channel();
        if self.urgent.try_send(Op::Flush(tx)).is_ok() {
            let _ = tokio::time::timeout(WRITER_PATIENCE, rx).await;
        }
        close_idle(&self.pool).await;
    }
}

/// Close the pool's idle connections (those in use are left alone); the pool opens new ones
/// when asked.
async fn close_idle(pool: &SqlitePool) {
    // Held together, so that each acquisition gives another idle connection.
    let mut idle = Vec::new();
    while idle.len() < POOL_SIZE as usize {
        match pool.try_acquire() {
            Some(c) => idle.push(c),
            None => break,
        }
    }
    for c in idle {
        let _ = c.close().await;
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::types::RunAgentInput;
    use crate::server::store::Store;

    extern "C" {
        /// SQLite's count of the bytes it has allocated, every connection of the process
        /// (the bundled SQLite that sqlx links).
        fn sqlite3_memory_used() -> i64;
    }

    fn sqlite_bytes() -> i64 {
        // SAFETY: a read of SQLite's memory statistics; thread-safe.
        unsafe { sqlite3_memory_used() }
    }

    /// SQLite's count is the whole process's: the tests that read it take turns.
    static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

    /// A store on a fresh file with 16 MB of events written (run `r1`, 16,000 of them), all
    /// committed and read back: the writer's and a reader's page caches are full.
    async fn filled_store(tag: &str) -> (Store, std::path::PathBuf) {
        let (store, dir, _) = crate::server::store::testing::fresh_store(tag).await;
        let input = RunAgentInput::new("t1".to_string(), "r1".to_string());
        let op = Store::run_started_op(&input, &input.messages, "demo", "", 1);
        store.run_started(op).await;
        let event = format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"{}"}}"#,
            "x".repeat(1_000)
        );
        for seq in 1..=16_000 {
            store
                .event("r1".into(), seq, event.as_str().into(), None)
                .await;
        }
        store.flush().await;
        assert_eq!(
            store.events_after("r1", 0, 20_000).await.unwrap().len(),
            16_000
        );
        (store, dir)
    }

    /// The store of [`filled_store`] writes one more event, which reads back after the others.
    async fn writes_again(store: &Store) {
        store
            .event(
                "r1".into(),
                16_001,
                r#"{"type":"RAW","event":{}}"#.into(),
                None,
            )
            .await;
        store.flush().await;
        assert_eq!(
            store.events_after("r1", 15_990, 100).await.unwrap().len(),
            11
        );
    }

    /// 16 MB of events written and read back fill the page caches of the connections that
    /// wrote and read them; a release hands most of it back, and the events still read and
    /// write.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_release_hands_the_page_caches_back() {
        let _turn = TURN.lock().await;
        let (store, dir) = filled_store("release").await;
        let full = sqlite_bytes();
        store.release_memory().await;
        let released = sqlite_bytes();
        assert!(
            full - released > 8 << 20,
            "SQLite held {} MB, {} MB after the release",
            full >> 20,
            released >> 20
        );
        assert_eq!(
            store.events_after("r1", 15_990, 100).await.unwrap().len(),
            10
        );
        // The writer opens its connection again.
        writes_again(&store).await;
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A writer that has written a burst hands its page cache back once it has had nothing to
    /// write for a second, with no release asked for; it writes on afterwards.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_idle_writer_hands_its_page_cache_back() {
        let _turn = TURN.lock().await;
        let (store, dir) = filled_store("idle-writer").await;
        let full = sqlite_bytes();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut now = full;
        while full - now <= 8 << 20 && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            now = sqlite_bytes();
        }
        assert!(
            full - now > 8 << 20,
            "SQLite held {} MB, still {} MB after 5 s of an idle writer",
            full >> 20,
            now >> 20
        );
        writes_again(&store).await;
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An in-memory database keeps its pages (they are the database).
    #[tokio::test]
    async fn an_in_memory_database_is_left_alone() {
        let store = Store::open(":memory:").await.unwrap();
        let input = RunAgentInput::new("t1".to_string(), "r1".to_string());
        let op = Store::run_started_op(&input, &input.messages, "demo", "", 1);
        store.run_started(op).await;
        store
            .event("r1".into(), 1, r#"{"type":"RAW","event":{}}"#.into(), None)
            .await;
        store.flush().await;
        store.release_memory().await;
        assert_eq!(store.events_after("r1", 0, 10).await.unwrap().len(), 1);
    }

    /// A new database file's options, in a directory of its own (the caller removes it).
    fn file_options(tag: &str) -> (std::path::PathBuf, sqlx::sqlite::SqliteConnectOptions) {
        let dir = crate::server::store::testing::fresh_dir(tag);
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(dir.join("t.db"))
            .create_if_missing(true);
        (dir, options)
    }

    /// The pool's idle connections are closed, not returned to it; one in use stays open; the
    /// pool opens a new one for the next read.
    #[tokio::test]
    async fn the_idle_connections_are_closed() {
        let (dir, options) = file_options("close-idle");
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .unwrap();
        let mut held = Vec::new();
        for _ in 0..3 {
            held.push(pool.acquire().await.unwrap());
        }
        let busy = held.pop().unwrap();
        drop(held);
        // Two go back to the pool (in a task of the pool's).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while pool.num_idle() < 2 && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!((pool.size(), pool.num_idle()), (3, 2));
        super::close_idle(&pool).await;
        assert_eq!(
            (pool.size(), pool.num_idle()),
            (1, 0),
            "only the busy one is open"
        );
        drop(busy);
        let one: (i64,) = sqlx::query_as("SELECT 1").fetch_one(&pool).await.unwrap();
        assert_eq!(one.0, 1);
        pool.close().await;
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The writer's own connection is closed by a release and opened again by its next commit.
    #[tokio::test]
    async fn the_writer_closes_its_connection_and_opens_it_again() {
        use crate::server::store::writer::WriterConn;
        let (dir, options) = file_options("close-writer");
        let mut conn = WriterConn::own(options).await.unwrap();
        assert!(
            conn.shrink().await,
            "a connection of its own is handed back"
        );
        assert!(matches!(conn, WriterConn::Own { conn: None, .. }));
        let (mut batch, mut acks) = (Vec::new(), Vec::new());
        let (ack, acked) = tokio::sync::oneshot::channel();
        batch.push(crate::server::store::Op::Flush(ack));
        conn.commit(&mut batch, &mut acks).await.unwrap();
        assert!(matches!(conn, WriterConn::Own { conn: Some(_), .. }));
        for a in acks {
            let _ = a.send(());
        }
        acked.await.unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}

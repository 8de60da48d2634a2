//! Who owns a thread and a run id, as a new run's checks read them (`Runs::check_owner`): the
//! lookups of runs starting at once are answered together, by one query for up to [`BATCH`]
//! of them. Read one by one, a thousand runs starting at once each waited its turn for one of
//! the pool's few connections, and each read took a connection's round trips (the query, its
//! return to the pool): 185 ms at the median before a new run could start (the capacity
//! benchmark's 1,000-runs row, 2026-12-02).

use std::collections::HashMap;

use sqlx::SqlitePool;
use tokio::sync::{mpsc, oneshot};

use super::StoreError;

/// Most lookups one query answers.
const BATCH: usize = 512;

/// Lookups waiting for the query under way; past this, callers wait to be queued.
const QUEUE: usize = 4096;

/// A thread's owner (None: no such thread), and a run's owner and thread (None: no such run).
pub type Owners = (Option<String>, Option<(String, String)>);

struct Lookup {
    thread_id: String,
    run_id: String,
    reply: oneshot::Sender<Result<Owners, String>>,
}

/// The sending side of the lookups; the task answering them ends with the last clone.
#[derive(Clone)]
pub(super) struct OwnerLookups {
    tx: mpsc::Sender<Lookup>,
}

impl OwnerLookups {
    /// The lookups, and the task answering them (to be spawned).
    pub(super) fn new(
        pool: SqlitePool,
    ) -> (Self, impl std::future::Future<Output = ()> + Send + 'static) {
        let (tx, rx) = mpsc::channel(QUEUE);
        (OwnerLookups { tx }, answer(pool, rx))
    }

    /// The owners of `thread_id` and `run_id` as committed when the lookup is answered: a
    /// caller that must see a queued write flushes it first.
    pub(super) async fn lookup(&self, thread_id: &str, run_id: &str) -> Result<Owners, StoreError> {
        let (reply, answered) = oneshot::channel();
        let lookup = Lookup {
            thread_id: thread_id.to_string(),
            run_id: run_id.to_string(),
            reply,
        };
        let stopped = || StoreError::Read("the database's owner lookups have stopped".into());
        self.tx.send(lookup).await.map_err(|_| stopped())?;
        answered
            .await
            .map_err(|_| stopped())?
            .map_err(StoreError::Read)
    }
}

/// Answer what is queued, up to [`BATCH`] lookups a query, until every sender is gone.
async fn answer(pool: SqlitePool, mut rx: mpsc::Receiver<Lookup>) {
    let mut batch = Vec::with_capacity(BATCH);
    while rx.recv_many(&mut batch, BATCH).await > 0 {
        let found = read(&pool, &batch).await.map_err(|e| e.to_string());
        for lookup in batch.drain(..) {
            let owners = match &found {
                Ok((threads, runs)) => Ok((
                    threads.get(&lookup.thread_id).cloned(),
                    runs.get(&lookup.run_id).cloned(),
                )),
                Err(e) => Err(e.clone()),
            };
            let _ = lookup.reply.send(owners);
        }
        batch.shrink_to(BATCH);
    }
}

type Found = (HashMap<String, String>, HashMap<String, (String, String)>);

/// The owners of every thread and run id `batch` names, in one query (the ids go in as two JSON
/// arrays, so the statement is the same whatever their number).
async fn read(pool: &SqlitePool, batch: &[Lookup]) -> Result<Found, sqlx::Error> {
    let ids = |f: fn(&Lookup) -> &str| {
        serde_json::to_string(&batch.iter().map(f).collect::<Vec<_>>()).unwrap_or_default()
    };
    let rows: Vec<(bool, String, String, Option<String>)> = sqlx::query_as(
        "SELECT 1, id, owner, NULL FROM threads WHERE id IN (SELECT value FROM json_each(?1)) \
         UNION ALL \
         SELECT 0, id, owner, thread_id FROM runs WHERE id IN (SELECT value FROM json_each(?2))",
    )
    .bind(ids(|l| &l.thread_id))
    .bind(ids(|l| &l.run_id))
    .fetch_all(pool)
    .await?;
    let (mut threads, mut runs) = (HashMap::new(), HashMap::new());
    for (is_thread, id, owner, thread) in rows {
        match (is_thread, thread) {
            (true, _) => {
                threads.insert(id, owner);
            }
            (false, Some(thread)) => {
                runs.insert(id, (owner, thread));
            }
            (false, None) => {}
        }
    }
    Ok((threads, runs))
}

#[cfg(test)]
mod tests {
    use crate::protocol::types::RunAgentInput;
    use crate::server::store::Store;

    /// More lookups at once than one query answers, stored and unknown ids mixed: each caller
    /// gets the owners of its own ids.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_crowd_of_lookups_gets_each_its_own_answer() {
        let store = Store::open(":memory:").await.unwrap();
        for i in 0..50 {
            let input = RunAgentInput::new(format!("t{i}"), format!("r{i}"));
            let op = Store::run_started_op(&input, &input.messages, "demo", &format!("u{i}"), 1);
            store.run_started(op).await;
        }
        let n = 3 * super::BATCH;
        let lookups = (0..n).map(|i| {
            let store = store.clone();
            // Thread i % 100 and run (i + 7) % 100: half of each are stored.
            let (t, r) = (i % 100, (i + 7) % 100);
            tokio::spawn(async move {
                let got = store
                    .thread_and_run_owners(&format!("t{t}"), &format!("r{r}"))
                    .await
                    .unwrap();
                (t, r, got)
            })
        });
        let answers = futures::future::join_all(lookups.collect::<Vec<_>>()).await;
        assert_eq!(answers.len(), n);
        for answer in answers {
            let (t, r, (thread, run)) = answer.unwrap();
            assert_eq!(thread, (t < 50).then(|| format!("u{t}")), "thread t{t}");
            assert_eq!(
                run,
                (r < 50).then(|| (format!("u{r}"), format!("t{r}"))),
                "run r{r}"
            );
        }
    }

    /// Ids that would break a query built by hand are looked up as they are.
    #[tokio::test]
    async fn ids_are_data() {
        let store = Store::open(":memory:").await.unwrap();
        let odd = r#"t'"),("x"] --"#;
        let input = RunAgentInput::new(odd.to_string(), "r\"1".to_string());
        let op = Store::run_started_op(&input, &input.messages, "demo", "ann", 1);
        store.run_started(op).await;
        let (thread, run) = store.thread_and_run_owners(odd, "r\"1").await.unwrap();
        assert_eq!(thread.as_deref(), Some("ann"));
        assert_eq!(run, Some(("ann".into(), odd.into())));
        let (thread, run) = store.thread_and_run_owners("t", "r").await.unwrap();
        assert_eq!((thread, run), (None, None));
    }
}

//! One server per database file: an exclusive OS lock on `<db>.lock`, released when the
//! process dies however it dies, shared by a second opening within the same process.

use super::error::StoreError;
use std::sync::Arc;

/// The lock files this process holds, by canonical path: a second `Store::open` of the same
/// file in this process (an in-process restart in tests) shares the first one's lock instead of
/// failing on it. Keyed by path, not by the process id written in the file: two servers in two
/// containers are often both PID 1.
static HELD_LOCKS: std::sync::LazyLock<
    parking_lot::Mutex<
        std::collections::HashMap<std::path::PathBuf, std::sync::Weak<std::fs::File>>,
    >,
> = std::sync::LazyLock::new(Default::default);

/// Take the database's lock file: one server per database file. A second one would take the
/// first one's runs in progress for a crash's leftovers and mark them interrupted. The lock is
/// the operating system's (released when the process dies, however it dies).
pub(super) fn lock_database(path: &str) -> Result<Arc<std::fs::File>, StoreError> {
    use std::io::{Read, Seek, Write};
    let lock_path = format!("{path}.lock");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|source| StoreError::Lock {
            path: lock_path.clone(),
            source,
        })?;
    let key = std::fs::canonicalize(&lock_path).unwrap_or_else(|_| lock_path.clone().into());
    let mut held = HELD_LOCKS.lock();
    held.retain(|_, weak| weak.strong_count() > 0);
    if let Some(mine) = held.get(&key).and_then(std::sync::Weak::upgrade) {
        return Ok(mine);
    }
    match file.try_lock() {
        Ok(()) => {
            let _ = file.set_len(0);
            let _ = file.rewind();
            let _ = write!(file, "{}", std::process::id());
            let file = Arc::new(file);
            held.insert(key, Arc::downgrade(&file));
            Ok(file)
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let who = if holder.is_empty() {
                "another process".to_string()
            } else {
                format!("process {holder}")
            };
            Err(StoreError::InUse {
                path: path.to_string(),
                holder: who,
            })
        }
        Err(std::fs::TryLockError::Error(source)) => Err(StoreError::Lock {
            path: lock_path,
            source,
        }),
    }
}

#[cfg(test)]
mod lock_tests {
    use crate::server::store::Store;

    /// Another process holds the lock, and the file it wrote names *this* process (as when two
    /// servers in two containers are both PID 1): the database is refused all the same.
    #[tokio::test]
    async fn a_lock_held_by_another_process_refuses_the_database_whatever_pid_it_names() {
        let dir = std::env::temp_dir().join(format!("agui-lock-pid-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("studio.db");
        let lock = dir.join("studio.db.lock");
        std::fs::write(&lock, std::process::id().to_string()).unwrap();
        // One process holds the lock and is the one killed (flock(1) from util-linux, then
        // `exec sleep` in the same process).
        let mut holder = std::process::Command::new("sh")
            .arg("-c")
            .arg("exec 9<>\"$1\" && flock -x 9 && exec sleep 30")
            .arg("sh")
            .arg(&lock)
            .spawn()
            .expect("sh and flock(1)");
        // Until flock holds it, our own try_lock would succeed: wait (bounded) for that.
        let mut held = false;
        for _ in 0..100 {
            let f = std::fs::File::open(&lock).unwrap();
            match f.try_lock() {
                Ok(()) => {
                    drop(f);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(_) => {
                    held = true;
                    break;
                }
            }
        }
        assert!(held, "flock took the lock");
        let opened = Store::open(db.to_str().unwrap()).await;
        let _ = holder.kill();
        let _ = holder.wait();
        let err = opened.err().expect("the database is refused");
        assert!(
            matches!(err, crate::server::store::StoreError::InUse { .. }),
            "{err}"
        );
        // Released: now it opens, and a second opening in this process shares the lock.
        let first = Store::open(db.to_str().unwrap())
            .await
            .expect("opens once free");
        let second = Store::open(db.to_str().unwrap()).await;
        assert!(second.is_ok(), "{:?}", second.err());
        drop((first, second));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! What a user changes in a stored thread besides running it: its title, the thumbs on its
//! messages, cutting it (edit and resend) and deleting it with its runs and events. The caller
//! holds the thread (no run of it in progress or starting, see `Runs::hold_thread`).

use sqlx::Row;

use super::{Store, StoreError};
use crate::protocol::reduce::PlacedHint;
use crate::protocol::types::Message;
use crate::wire::{Feedback, Rating};

impl Store {
    /// Give a thread a title (None: back to the automatic one). False: no such thread.
    pub async fn rename_thread(&self, id: &str, title: Option<&str>) -> Result<bool, StoreError> {
        self.flush().await;
        let done = sqlx::query("UPDATE threads SET custom_title = ? WHERE id = ?")
            .bind(title)
            .bind(id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(done > 0)
    }

    /// Delete a thread, its runs, their events and its feedback. False: no such thread.
    pub async fn delete_thread(&self, id: &str) -> Result<bool, StoreError> {
        self.flush().await;
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM events WHERE run_id IN (SELECT id FROM runs WHERE thread_id = ?)")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM runs WHERE thread_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM feedback WHERE thread_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let done = sqlx::query("DELETE FROM threads WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(done > 0)
    }

    /// The ratings of a thread's messages.
    pub async fn feedback(&self, thread_id: &str) -> Result<Feedback, StoreError> {
        let rows = sqlx::query("SELECT message_id, rating FROM feedback WHERE thread_id = ?")
            .bind(thread_id)
            .fetch_all(&self.pool)
            .await?;
        let mut out = Feedback::new();
        for row in rows {
            let rating: String = row.try_get("rating")?;
            if let Some(r) = Rating::parse(&rating) {
                out.insert(row.try_get("message_id")?, r);
            }
        }
        Ok(out)
    }

    /// Rate a message of a thread (None: no rating). The caller checks the message is one of
    /// the thread's, which bounds the ratings a thread can have.
    pub async fn set_feedback(
        &self,
        thread_id: &str,
        message_id: &str,
        rating: Option<Rating>,
        at: i64,
    ) -> Result<(), StoreError> {
        self.flush().await;
        match rating {
            Some(r) => {
                sqlx::query(
                    "INSERT INTO feedback (thread_id, message_id, rating, updated_at) VALUES (?, ?, ?, ?) \
                     ON CONFLICT (thread_id, message_id) DO UPDATE SET rating = excluded.rating, \
                     updated_at = excluded.updated_at",
                )
                .bind(thread_id)
                .bind(message_id)
                .bind(r.as_str())
                .bind(at)
                .execute(&self.pool)
                .await?;
            }
            None => {
                sqlx::query("DELETE FROM feedback WHERE thread_id = ? AND message_id = ?")
                    .bind(thread_id)
                    .bind(message_id)
                    .execute(&self.pool)
                    .await?;
            }
        }
        Ok(())
    }

    /// Replace a thread's messages and render hints (a thread cut before an edited message),
    /// dropping the ratings of messages that left it.
    pub async fn replace_messages(
        &self,
        thread_id: &str,
        messages: &[Message],
        hints: &[PlacedHint],
        at: i64,
    ) -> Result<(), StoreError> {
        let json = serde_json::to_string(messages).unwrap_or_else(|_| "[]".into());
        let hints = serde_json::to_string(hints).unwrap_or_else(|_| "[]".into());
        let kept: Vec<&str> = messages.iter().map(|m| m.id()).collect();
        let kept = serde_json::to_string(&kept).unwrap_or_else(|_| "[]".into());
        self.flush().await;
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "UPDATE threads SET messages = ?, message_count = ?, render_hints = ?, updated_at = ? \
             WHERE id = ?",
        )
        .bind(&json)
        .bind(messages.len() as i64)
        .bind(&hints)
        .bind(at)
        .bind(thread_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "DELETE FROM feedback WHERE thread_id = ? \
             AND message_id NOT IN (SELECT value FROM json_each(?))",
        )
        .bind(thread_id)
        .bind(&kept)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}

/// A `LIKE` pattern finding `text` anywhere (its `%`, `_` and `\` taken literally, with
/// `ESCAPE '\'`).
pub(super) fn contains_pattern(text: &str) -> String {
    let mut p = String::with_capacity(text.len() + 2);
    p.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

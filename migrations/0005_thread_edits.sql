-- A title the user gave a thread (NULL: the automatic one, from its first user message, which
-- stays in `title`).
ALTER TABLE threads ADD COLUMN custom_title TEXT;
-- Thumbs up/down on a thread's messages: at most one per message, gone with the thread.
CREATE TABLE feedback (
    thread_id   TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    message_id  TEXT NOT NULL,
    rating      TEXT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (thread_id, message_id)
);

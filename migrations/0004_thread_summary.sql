-- The number of a thread's messages, so that lists of threads (the page, GET /api/threads) read
-- one row of summary per thread instead of every message of every thread.
ALTER TABLE threads ADD COLUMN message_count BIGINT NOT NULL DEFAULT 0;
UPDATE threads SET message_count = json_array_length(messages);
CREATE INDEX threads_by_update ON threads (updated_at DESC, id);

-- Threads, their runs, and every event of every run (the source of truth for replay/resume).
-- Plain SQL that SQLite and PostgreSQL both accept; times are Unix milliseconds; JSON is TEXT.

CREATE TABLE threads (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL DEFAULT '',
    agent_id    TEXT,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    -- The conversation as of the last run start or end (live runs: replay their events on top).
    messages    TEXT NOT NULL DEFAULT '[]',
    state       TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    thread_id   TEXT NOT NULL REFERENCES threads(id),
    agent_id    TEXT,
    status      TEXT NOT NULL,
    started_at  BIGINT NOT NULL,
    ended_at    BIGINT,
    error       TEXT,
    -- The RunAgentInput the agent ran with (history included).
    input       TEXT NOT NULL
);

CREATE INDEX runs_by_thread ON runs (thread_id, started_at);

CREATE TABLE events (
    run_id  TEXT NOT NULL REFERENCES runs(id),
    seq     BIGINT NOT NULL,
    event   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);

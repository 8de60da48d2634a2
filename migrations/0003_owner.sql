-- Who owns each thread and run: the user name that created it ('' is the anonymous user of a
-- server without authentication). Another user's threads and runs are never listed or read.
ALTER TABLE threads ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX threads_by_owner ON threads (owner, updated_at);
CREATE INDEX runs_by_owner ON runs (owner);

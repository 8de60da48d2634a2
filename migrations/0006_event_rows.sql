-- A row of `events` may hold several consecutive events of its run: `span` of them, numbered
-- `seq` .. `seq + span - 1`, its `event` then a JSON array of them in order (a row of one event
-- is that event, as every row before this was). The writer stores each run's events of a
-- commit in as few rows as it can: with a thousand runs streaming at once, a row per event
-- made every commit rewrite an index page per run for a few events each.
ALTER TABLE events ADD COLUMN span INTEGER NOT NULL DEFAULT 1;

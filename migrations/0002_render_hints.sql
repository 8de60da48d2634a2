-- Render hints of a thread's runs and where its transcript shows them (JSON array of
-- {component, props, position, runId}), as of the last run end.
ALTER TABLE threads ADD COLUMN render_hints TEXT NOT NULL DEFAULT '[]';

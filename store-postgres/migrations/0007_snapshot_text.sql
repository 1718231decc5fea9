-- hwf PostgreSQL store, schema version 7: the snapshot's own text is kept.
-- jsonb reorders object keys (shortest first), and a run's `args` and
-- result keep the order they were written in (a script that lists
-- `Object.keys(args)` must see the same order when its run is resumed
-- from this store). From this version every save writes snapshot_text;
-- snapshot (jsonb) is still written when jsonb can hold it, for the
-- queries that look inside it. Rows of earlier versions have one or the
-- other, and read as before.
ALTER TABLE hwf_runs DROP CONSTRAINT IF EXISTS hwf_runs_check;
ALTER TABLE hwf_runs ADD CONSTRAINT hwf_runs_snapshot_present
    CHECK (snapshot IS NOT NULL OR snapshot_text IS NOT NULL);

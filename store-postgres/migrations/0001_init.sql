-- hwf PostgreSQL store, schema version 1: every table of the store traits.
-- Applied by hwf_store_postgres::migrate inside one transaction and
-- recorded in hwf_schema_migrations. Ids and names sort bytewise (COLLATE
-- "C"), as the file store's directory listings do.

-- Runs: the snapshot as jsonb (snapshot_text only when jsonb cannot hold
-- it: a \u0000 in a string) and the columns a runner selects on.
CREATE TABLE hwf_runs (
    run_id        text COLLATE "C" PRIMARY KEY,
    state         text NOT NULL,
    created_at_ms bigint NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    snapshot      jsonb,
    snapshot_text text,
    CHECK ((snapshot IS NULL) <> (snapshot_text IS NULL))
);
CREATE INDEX hwf_runs_state ON hwf_runs (state);

-- Claims: one lease per run. `token` is the fencing token (bumped by every
-- claim); `holder` is NULL when free; a lease whose lease_expires_at has
-- passed may be taken by anyone. synced_seq is the journal seq the holder
-- last made durable (the sync commit writes it).
CREATE TABLE hwf_claims (
    run_id           text COLLATE "C" PRIMARY KEY REFERENCES hwf_runs (run_id) ON DELETE CASCADE,
    token            bigint NOT NULL DEFAULT 0,
    holder           text,
    lease_expires_at timestamptz,
    claimed_at       timestamptz,
    synced_seq       bigint NOT NULL DEFAULT 0
);

-- The journal: one row per line, keyed by (run_id, seq), so a repeated
-- append is refused by the key. `line` is the JSON line exactly as the
-- writer serialised it (no trailing newline); kind/call/fingerprint are
-- copied out of it for queries.
CREATE TABLE hwf_journal (
    run_id      text COLLATE "C" NOT NULL REFERENCES hwf_runs (run_id) ON DELETE CASCADE,
    seq         bigint NOT NULL CHECK (seq > 0),
    ts_ms       bigint NOT NULL,
    kind        text NOT NULL,
    call        text,
    fingerprint text,
    line        text NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- Controls: unique by (run_id, id), in append order (pos).
CREATE TABLE hwf_controls (
    pos    bigserial PRIMARY KEY,
    run_id text COLLATE "C" NOT NULL REFERENCES hwf_runs (run_id) ON DELETE CASCADE,
    id     text NOT NULL,
    body   text NOT NULL,
    UNIQUE (run_id, id)
);

-- A control insert wakes the runs' watchers (LISTEN hwf_controls; the
-- payload is the run id).
CREATE FUNCTION hwf_notify_control() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('hwf_controls', NEW.run_id);
    RETURN NULL;
END $$;
CREATE TRIGGER hwf_controls_notify AFTER INSERT ON hwf_controls
    FOR EACH ROW EXECUTE FUNCTION hwf_notify_control();

-- Artifacts: by (run_id, ref) (`result`, `transcripts/<call>`).
CREATE TABLE hwf_artifacts (
    run_id     text COLLATE "C" NOT NULL REFERENCES hwf_runs (run_id) ON DELETE CASCADE,
    ref        text COLLATE "C" NOT NULL,
    bytes      bytea NOT NULL,
    written_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, ref)
);

-- Saved scripts: immutable versions per name. `meta` is the ScriptMeta
-- JSON (its name and version are the columns').
CREATE TABLE hwf_scripts (
    name     text COLLATE "C" NOT NULL,
    version  integer NOT NULL CHECK (version > 0),
    language text NOT NULL,
    meta     text NOT NULL,
    bytes    bytea NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (name, version)
);

-- External events: store-wide versions 1, 2, … with no gaps (assigned
-- under a table lock), unique by (source, id).
CREATE TABLE hwf_events (
    version bigint PRIMARY KEY CHECK (version > 0),
    source  text NOT NULL,
    id      text NOT NULL,
    body    text NOT NULL,
    UNIQUE (source, id)
);

-- Inline scripts by content address (`<blake3 hex>.<ext>`).
CREATE TABLE hwf_blobs (
    ref   text COLLATE "C" PRIMARY KEY,
    bytes bytea NOT NULL
);

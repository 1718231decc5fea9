-- hwf PostgreSQL store, schema version 4: trigger definitions, so an event
-- sent on any machine, and the cron pass of any runner, sees every trigger
-- (they were files in one machine's state dir). `definition` is the
-- trigger's JSON as hwf wrote it. (Version 3 is the journal payload
-- chunks; the versions are applied one by one, whichever is missing.)

CREATE TABLE hwf_triggers (
    name       text COLLATE "C" PRIMARY KEY,
    definition text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

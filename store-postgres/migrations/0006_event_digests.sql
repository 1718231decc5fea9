-- hwf PostgreSQL store, schema version 6: a webhook signed over its body
-- alone (GitHub's) keeps the body's digest in the event (`digest` in the
-- stored JSON); a second delivery of the same body from the same source is
-- the same event. This index makes that lookup cheap (issue 29).
CREATE INDEX hwf_events_digest ON hwf_events (source, ((body::jsonb) ->> 'digest'))
    WHERE (body::jsonb) ? 'digest';

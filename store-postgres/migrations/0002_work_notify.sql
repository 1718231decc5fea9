-- hwf PostgreSQL store, schema version 2: idle runners wake when there may
-- be work. `NOTIFY hwf_work` (payload: the run id, empty for an event) when
-- a run is created or put in the queue or parked (its waits may already be
-- resolved), and when an event is recorded; controls already notify
-- `hwf_controls` (version 1), which runners listen to as well. Runners
-- still poll as the fallback.

CREATE FUNCTION hwf_notify_work_run() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state IN ('queued', 'waiting')
        AND (TG_OP = 'INSERT' OR OLD.state IS DISTINCT FROM NEW.state) THEN
        PERFORM pg_notify('hwf_work', NEW.run_id);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER hwf_runs_work AFTER INSERT OR UPDATE OF state ON hwf_runs
    FOR EACH ROW EXECUTE FUNCTION hwf_notify_work_run();

CREATE FUNCTION hwf_notify_work_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('hwf_work', '');
    RETURN NULL;
END $$;
CREATE TRIGGER hwf_events_work AFTER INSERT ON hwf_events
    FOR EACH ROW EXECUTE FUNCTION hwf_notify_work_event();

-- 0011_audit_events_by_account: the audit log's key is (account_id,
-- event_time, id), the order it is read in, as on SQLite, where that
-- clusters each account's events (a table's rows are not clustered here,
-- but the schema stays one). The index of the same columns goes; id stays
-- unique. Released: never edit; add a step.

ALTER TABLE audit_events DROP CONSTRAINT audit_events_pkey;
ALTER TABLE audit_events ADD PRIMARY KEY (account_id, event_time, id);
CREATE UNIQUE INDEX idx_audit_events_id ON audit_events (id);
DROP INDEX idx_audit_account_time;

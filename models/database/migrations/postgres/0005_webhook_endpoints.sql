-- Several webhook endpoints per account, each choosing the event types it
-- receives (existing endpoints keep receiving every ticket event); a
-- signing secret being rotated away, which signs beside the new one until
-- its grace period ends; and when an endpoint's run of failed attempts
-- began, so one that fails for days can be switched off. Released: never
-- edit; add a step.

ALTER TABLE webhook_endpoints
    ADD COLUMN event_types text NOT NULL DEFAULT '["ticket.created","ticket.status_changed","ticket.resolved"]',
    ADD COLUMN previous_secret varchar(128) NOT NULL DEFAULT '',
    ADD COLUMN previous_secret_until timestamptz,
    ADD COLUMN failing_since timestamptz;
ALTER TABLE webhook_endpoints
    ALTER COLUMN event_types DROP DEFAULT,
    ALTER COLUMN previous_secret DROP DEFAULT;

DROP INDEX idx_webhook_endpoints_account_id;
CREATE INDEX idx_webhook_endpoints_account_id ON webhook_endpoints (account_id);

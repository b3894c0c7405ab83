-- Deliveries under a lease, so that counting what is in flight per endpoint
-- and per account (every webhook claim) reads only those, not every
-- pending delivery: a backlog of retries made each claim walk all of it.
CREATE INDEX idx_webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE lease_until IS NOT NULL;

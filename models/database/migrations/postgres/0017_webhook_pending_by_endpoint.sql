-- Pending deliveries per endpoint in the order they fall due, so that a
-- webhook claim, and the dispatcher's look for the next due delivery, read
-- a few rows of each enabled endpoint instead of the whole due backlog: an
-- account whose receivers hang and whose events outpace its share made
-- every claim of every dispatcher walk all its waiting deliveries.
CREATE INDEX idx_webhook_deliveries_pending ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending';

-- 0032_search: indexes for the dashboard's search (models.Search), which
-- finds objects by the lower-cased prefix of their name with a range on
-- lower(name): one index probe per kind, whatever the number of objects.
-- Tickets have two, for an account's search and support's across accounts.

CREATE INDEX idx_instances_search ON instances (account_id, lower(name));
CREATE INDEX idx_filesystems_search ON filesystems (account_id, lower(name));
CREATE INDEX idx_ssh_keys_search ON ssh_keys (account_id, lower(name));
CREATE INDEX idx_api_keys_search ON api_keys (account_id, lower(name));
CREATE INDEX idx_tickets_search ON tickets (account_id, lower(subject));
CREATE INDEX idx_tickets_subject ON tickets (lower(subject));

-- 0002_constraints: foreign keys where rows refer to each other, and CHECK
-- constraints on columns with a closed set of values. Rows of an older
-- database that break them make the step fail (it is rolled back) with
-- the constraint's name: fix or remove those rows and migrate again.
-- Audit events keep no foreign key: the log outlives what it names, and
-- support staff's events have no account. tickets.instance_id is what the
-- customer typed, not a reference. Released: never edit; add a step.

ALTER TABLE accounts
    ADD CONSTRAINT chk_accounts_status CHECK (status IN ('active', 'inactive'));

ALTER TABLE users
    ADD CONSTRAINT fk_users_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    ADD CONSTRAINT chk_users_role CHECK (role IN ('owner', 'support')),
    ADD CONSTRAINT chk_users_status CHECK (status IN ('active', 'deactivated'));

ALTER TABLE api_keys
    ADD CONSTRAINT fk_api_keys_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    ADD CONSTRAINT fk_api_keys_user FOREIGN KEY (user_id) REFERENCES users (id);

ALTER TABLE filesystems
    ADD CONSTRAINT fk_filesystems_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    ADD CONSTRAINT fk_filesystems_created_by_user FOREIGN KEY (created_by_user_id) REFERENCES users (id);

ALTER TABLE firewall_rulesets
    ADD CONSTRAINT fk_firewall_rulesets_account FOREIGN KEY (account_id) REFERENCES accounts (id);

ALTER TABLE instances
    ADD CONSTRAINT fk_instances_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    ADD CONSTRAINT chk_instances_status CHECK (status IN ('booting', 'active', 'unhealthy', 'terminating', 'terminated'));

ALTER TABLE instance_filesystems
    ADD CONSTRAINT fk_instance_filesystems_instance FOREIGN KEY (instance_id) REFERENCES instances (id),
    ADD CONSTRAINT fk_instance_filesystems_filesystem FOREIGN KEY (filesystem_id) REFERENCES filesystems (id);

ALTER TABLE instance_rulesets
    ADD CONSTRAINT fk_instance_rulesets_instance FOREIGN KEY (instance_id) REFERENCES instances (id),
    ADD CONSTRAINT fk_instance_rulesets_ruleset FOREIGN KEY (ruleset_id) REFERENCES firewall_rulesets (id);

ALTER TABLE ssh_keys
    ADD CONSTRAINT fk_ssh_keys_account FOREIGN KEY (account_id) REFERENCES accounts (id);

ALTER TABLE account_versions
    ADD CONSTRAINT fk_account_versions_account FOREIGN KEY (account_id) REFERENCES accounts (id);

ALTER TABLE sessions
    ADD CONSTRAINT fk_sessions_user FOREIGN KEY (user_id) REFERENCES users (id);

ALTER TABLE tickets
    ADD CONSTRAINT fk_tickets_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    ADD CONSTRAINT fk_tickets_created_by_user FOREIGN KEY (created_by_user_id) REFERENCES users (id),
    ADD CONSTRAINT chk_tickets_request_type CHECK (request_type IN ('incident', 'service_request', 'automated_event')),
    ADD CONSTRAINT chk_tickets_severity CHECK (severity IN ('sev_1', 'sev_2', 'sev_3')),
    ADD CONSTRAINT chk_tickets_status CHECK (status IN ('new', 'open', 'pending', 'on_hold', 'solved', 'closed')),
    ADD CONSTRAINT chk_tickets_source CHECK (source IN ('api', 'dashboard'));

ALTER TABLE ticket_comments
    ADD CONSTRAINT fk_ticket_comments_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id),
    ADD CONSTRAINT fk_ticket_comments_author_user FOREIGN KEY (author_user_id) REFERENCES users (id);

ALTER TABLE webhook_endpoints
    ADD CONSTRAINT fk_webhook_endpoints_account FOREIGN KEY (account_id) REFERENCES accounts (id);

ALTER TABLE webhook_events
    ADD CONSTRAINT fk_webhook_events_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    ADD CONSTRAINT fk_webhook_events_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id);

ALTER TABLE webhook_deliveries
    ADD CONSTRAINT fk_webhook_deliveries_event FOREIGN KEY (event_id) REFERENCES webhook_events (id),
    ADD CONSTRAINT fk_webhook_deliveries_endpoint FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id),
    ADD CONSTRAINT chk_webhook_deliveries_status CHECK (status IN ('pending', 'succeeded', 'failed'));

ALTER TABLE webhook_attempts
    ADD CONSTRAINT fk_webhook_attempts_delivery FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries (id),
    ADD CONSTRAINT fk_webhook_attempts_endpoint FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id);

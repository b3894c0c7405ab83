-- 0009_retries_versions_key_scopes: stored answers for Idempotency-Key
-- retries; version counters behind the rule lists' ETags; scoped,
-- expiring API keys. Released: never edit; add a step.

-- One row per (account, key): the unique primary key arbitrates which of
-- several concurrent requests runs. lease_token and locked_until are set
-- while it runs (a crashed claim goes stale); status_code is 0 until the
-- answer is stored.
CREATE TABLE idempotency_keys (
    account_id varchar(32) NOT NULL,
    key varchar(255) NOT NULL,
    fingerprint varchar(64) NOT NULL,
    lease_token varchar(32) NOT NULL,
    locked_until timestamptz,
    status_code bigint NOT NULL,
    response_headers text NOT NULL,
    response_body bytea,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, key),
    CONSTRAINT fk_idempotency_keys_account FOREIGN KEY (account_id) REFERENCES accounts (id)
);
CREATE INDEX idx_idempotency_keys_expires_at ON idempotency_keys (expires_at);

ALTER TABLE firewall_rulesets ADD COLUMN version bigint NOT NULL DEFAULT 1;
ALTER TABLE accounts ADD COLUMN inbound_rules_version bigint NOT NULL DEFAULT 1;
ALTER TABLE accounts ADD COLUMN global_rules_version bigint NOT NULL DEFAULT 1;

ALTER TABLE api_keys ADD COLUMN scope varchar(16) NOT NULL DEFAULT 'full'
    CONSTRAINT chk_api_keys_scope CHECK (scope IN ('full', 'read_only'));
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;

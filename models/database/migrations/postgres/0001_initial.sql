-- 0001_initial: the schema cloudplane created with GORM AutoMigrate up to
-- release 93d53d0, written out. Released: never edit; add a step.

CREATE TABLE settings (
    name varchar(64) NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (name)
);

CREATE TABLE accounts (
    id varchar(32) NOT NULL,
    status varchar(16) NOT NULL,
    billing_address_valid boolean NOT NULL,
    filesystem_quota bigint NOT NULL,
    ruleset_quota bigint NOT NULL,
    inbound_rules text NOT NULL,
    global_rules text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);

CREATE TABLE users (
    id varchar(32) NOT NULL,
    account_id varchar(32),
    email varchar(254) NOT NULL,
    password_hash varchar(100) NOT NULL,
    role varchar(16) NOT NULL,
    status varchar(16) NOT NULL,
    created_at timestamptz,
    updated_at timestamptz,
    PRIMARY KEY (id)
);
CREATE INDEX idx_users_account_id ON users (account_id);
CREATE UNIQUE INDEX idx_users_email ON users (email);

CREATE TABLE api_keys (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    user_id varchar(32) NOT NULL,
    name varchar(64) NOT NULL,
    prefix varchar(16) NOT NULL,
    hash varchar(64) NOT NULL,
    created_at timestamptz,
    last_used_at timestamptz,
    revoked_at timestamptz,
    PRIMARY KEY (id)
);
CREATE INDEX idx_api_keys_account_id ON api_keys (account_id);
CREATE UNIQUE INDEX idx_api_keys_hash ON api_keys (hash);
CREATE UNIQUE INDEX idx_api_keys_prefix ON api_keys (prefix);

CREATE TABLE audit_events (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    event_time timestamptz NOT NULL,
    service_name varchar(32) NOT NULL,
    resource_name varchar(64) NOT NULL,
    action varchar(32) NOT NULL,
    catalog_version varchar(16) NOT NULL,
    actor_lrn varchar(128),
    resource_lrns text NOT NULL,
    resource_owner_lrn varchar(128),
    request_api_key_lrn varchar(128),
    additional_details text NOT NULL,
    PRIMARY KEY (id)
);
CREATE INDEX idx_audit_account_time ON audit_events (account_id, event_time, id);
CREATE INDEX idx_audit_account_type_time ON audit_events (account_id, service_name, resource_name, event_time, id);

CREATE TABLE filesystems (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    name varchar(60) NOT NULL,
    region_name varchar(32) NOT NULL,
    created_by_user_id varchar(32) NOT NULL,
    bytes_used bigint NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);
CREATE UNIQUE INDEX idx_filesystems_account_name ON filesystems (account_id, name);

CREATE TABLE firewall_rulesets (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    name varchar(64) NOT NULL,
    region_name varchar(32) NOT NULL,
    rules text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);
CREATE INDEX idx_firewall_rulesets_account_id ON firewall_rulesets (account_id);

CREATE TABLE instances (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    name varchar(64) NOT NULL,
    region_name varchar(32) NOT NULL,
    instance_type_name varchar(64) NOT NULL,
    status varchar(16) NOT NULL,
    status_until timestamptz,
    ip varchar(45) NOT NULL,
    private_ip varchar(45) NOT NULL,
    hostname varchar(63) NOT NULL,
    ssh_key_names text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    tags text NOT NULL,
    PRIMARY KEY (id)
);
CREATE INDEX idx_instances_account_id ON instances (account_id);
CREATE INDEX idx_instances_status ON instances (status);

CREATE TABLE instance_filesystems (
    instance_id varchar(32) NOT NULL,
    filesystem_id varchar(32) NOT NULL,
    mount_point varchar(256) NOT NULL,
    PRIMARY KEY (instance_id, filesystem_id)
);
CREATE INDEX idx_instance_filesystems_filesystem_id ON instance_filesystems (filesystem_id);

CREATE TABLE instance_rulesets (
    instance_id varchar(32) NOT NULL,
    ruleset_id varchar(32) NOT NULL,
    PRIMARY KEY (instance_id, ruleset_id)
);
CREATE INDEX idx_instance_rulesets_ruleset_id ON instance_rulesets (ruleset_id);

CREATE TABLE ssh_keys (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    name varchar(64) NOT NULL,
    public_key varchar(4096) NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);
CREATE UNIQUE INDEX idx_ssh_keys_account_name ON ssh_keys (account_id, name);

CREATE TABLE capacity_locks (
    instance_type_name varchar(64) NOT NULL,
    region_name varchar(32) NOT NULL,
    PRIMARY KEY (instance_type_name, region_name)
);

CREATE TABLE account_versions (
    account_id varchar(32) NOT NULL,
    version bigint NOT NULL,
    PRIMARY KEY (account_id)
);

CREATE TABLE sessions (
    id varchar(32) NOT NULL,
    token_hash varchar(64) NOT NULL,
    user_id varchar(32) NOT NULL,
    csrf_token varchar(64) NOT NULL,
    flash varchar(512) NOT NULL,
    source_ip varchar(45) NOT NULL,
    created_at timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);
CREATE UNIQUE INDEX idx_sessions_token_hash ON sessions (token_hash);
CREATE INDEX idx_sessions_user_id ON sessions (user_id);

CREATE TABLE tickets (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    created_by_user_id varchar(32) NOT NULL,
    subject varchar(200) NOT NULL,
    description text NOT NULL,
    request_type varchar(32) NOT NULL,
    severity varchar(8),
    status varchar(16) NOT NULL,
    instance_ip varchar(45),
    instance_id varchar(32),
    cluster_id varchar(32),
    source varchar(16) NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    resolved_at timestamptz,
    PRIMARY KEY (id)
);
CREATE INDEX idx_tickets_account_created ON tickets (account_id, created_at);
CREATE INDEX idx_tickets_account_updated ON tickets (account_id, updated_at);
CREATE INDEX idx_tickets_created ON tickets (created_at);
CREATE INDEX idx_tickets_status ON tickets (status);
CREATE INDEX idx_tickets_updated ON tickets (updated_at);

CREATE TABLE ticket_comments (
    id varchar(32) NOT NULL,
    ticket_id varchar(32) NOT NULL,
    seq bigint NOT NULL,
    author_user_id varchar(32),
    author varchar(254) NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);
CREATE UNIQUE INDEX idx_ticket_comments_seq ON ticket_comments (ticket_id, seq);

CREATE TABLE webhook_endpoints (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    url varchar(2048) NOT NULL,
    token varchar(128) NOT NULL,
    secret varchar(128) NOT NULL,
    enabled boolean NOT NULL,
    disabled_reason varchar(512) NOT NULL,
    disabled_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);
CREATE UNIQUE INDEX idx_webhook_endpoints_account_id ON webhook_endpoints (account_id);

CREATE TABLE webhook_events (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    type varchar(64) NOT NULL,
    ticket_id varchar(32),
    payload text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);
CREATE INDEX idx_webhook_events_account_id ON webhook_events (account_id);
CREATE INDEX idx_webhook_events_created_at ON webhook_events (created_at);
CREATE INDEX idx_webhook_events_ticket_id ON webhook_events (ticket_id);

CREATE TABLE webhook_deliveries (
    id varchar(32) NOT NULL,
    event_id varchar(32) NOT NULL,
    endpoint_id varchar(32) NOT NULL,
    status varchar(16) NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    tries bigint NOT NULL,
    attempts bigint NOT NULL,
    lease_owner varchar(32) NOT NULL,
    lease_until timestamptz,
    last_status_code bigint NOT NULL,
    last_error varchar(1024) NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    completed_at timestamptz,
    PRIMARY KEY (id)
);
CREATE INDEX idx_webhook_deliveries_created_at ON webhook_deliveries (created_at);
CREATE INDEX idx_webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX idx_webhook_deliveries_endpoint_id ON webhook_deliveries (endpoint_id);
CREATE UNIQUE INDEX idx_webhook_deliveries_event_endpoint ON webhook_deliveries (event_id, endpoint_id);

CREATE TABLE webhook_attempts (
    id varchar(32) NOT NULL,
    delivery_id varchar(32) NOT NULL,
    number bigint NOT NULL,
    endpoint_id varchar(32) NOT NULL,
    url varchar(2048) NOT NULL,
    started_at timestamptz NOT NULL,
    duration bigint NOT NULL,
    remote_addr varchar(64) NOT NULL,
    request_headers text NOT NULL,
    status_code bigint NOT NULL,
    response_headers text NOT NULL,
    response_body bytea,
    body_truncated boolean NOT NULL,
    error_kind varchar(16) NOT NULL,
    error varchar(1024) NOT NULL,
    succeeded boolean NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);
CREATE INDEX idx_webhook_attempts_endpoint_time ON webhook_attempts (endpoint_id, started_at);
CREATE UNIQUE INDEX idx_webhook_attempts_number ON webhook_attempts (delivery_id, number);

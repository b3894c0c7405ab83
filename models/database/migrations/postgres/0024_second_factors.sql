-- Second factors (issue 21): a user's TOTP authenticator (on once a code
-- confirms it; last_step is the time step of the last code accepted, so
-- a code works once), their one-time recovery codes (only SHA-256 of
-- 80-bit codes), sign-ins waiting for their second step (only the token's
-- SHA-256; they expire after five minutes), and an account's rule that
-- every member must have a second factor.
CREATE TABLE second_factors (
    user_id varchar(32) NOT NULL,
    secret varchar(64) NOT NULL,
    confirmed boolean NOT NULL DEFAULT false,
    last_step bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (user_id),
    CONSTRAINT fk_second_factors_user FOREIGN KEY (user_id) REFERENCES users (id)
);
CREATE TABLE recovery_codes (
    id varchar(32) NOT NULL,
    user_id varchar(32) NOT NULL,
    code_hash varchar(64) NOT NULL,
    used_at timestamptz,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT fk_recovery_codes_user FOREIGN KEY (user_id) REFERENCES users (id)
);
CREATE INDEX idx_recovery_codes_user_id ON recovery_codes (user_id);
CREATE TABLE pending_sign_ins (
    id varchar(32) NOT NULL,
    token_hash varchar(64) NOT NULL,
    user_id varchar(32) NOT NULL,
    source_ip varchar(45) NOT NULL,
    user_agent varchar(512) NOT NULL,
    method varchar(64) NOT NULL,
    new_browser boolean NOT NULL,
    next_path varchar(2048) NOT NULL,
    reason varchar(16) NOT NULL,
    attempts bigint NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT fk_pending_sign_ins_user FOREIGN KEY (user_id) REFERENCES users (id),
    CONSTRAINT chk_pending_sign_ins_reason CHECK (reason IN ('second-factor', 'enrol'))
);
CREATE INDEX idx_pending_sign_ins_user_id ON pending_sign_ins (user_id);
CREATE UNIQUE INDEX idx_pending_sign_ins_token_hash ON pending_sign_ins (token_hash);
ALTER TABLE accounts ADD COLUMN require_second_factor boolean NOT NULL DEFAULT false;

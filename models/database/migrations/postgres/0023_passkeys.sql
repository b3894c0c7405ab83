-- Passkeys (issue 21): WebAuthn credentials a user signs in with. The
-- credential id (base64url) is unique across users, so an assertion
-- names exactly one passkey; the sign count is kept to refuse a cloned
-- authenticator whose counter goes back. Ceremonies hold the challenge
-- between the options and the answer, keyed by the SHA-256 of a token in
-- an HttpOnly cookie, in the database so that any replica can finish
-- what another began; a finished or expired ceremony is deleted.
CREATE TABLE passkeys (
    id varchar(32) NOT NULL,
    user_id varchar(32) NOT NULL,
    name varchar(64) NOT NULL,
    credential_id varchar(1400) NOT NULL,
    public_key bytea NOT NULL,
    sign_count bigint NOT NULL,
    aaguid varchar(32) NOT NULL,
    transports varchar(128) NOT NULL,
    backup_eligible boolean NOT NULL,
    backup_state boolean NOT NULL,
    user_verified boolean NOT NULL,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz,
    PRIMARY KEY (id),
    CONSTRAINT fk_passkeys_user FOREIGN KEY (user_id) REFERENCES users (id)
);
CREATE INDEX idx_passkeys_user_id ON passkeys (user_id);
CREATE UNIQUE INDEX idx_passkeys_credential_id ON passkeys (credential_id);
CREATE TABLE passkey_ceremonies (
    id varchar(64) NOT NULL,
    purpose varchar(16) NOT NULL,
    user_id varchar(32),
    session_data text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT chk_passkey_ceremonies_purpose CHECK (purpose IN ('register', 'sign_in', 'check'))
);
CREATE INDEX idx_passkey_ceremonies_expires_at ON passkey_ceremonies (expires_at);

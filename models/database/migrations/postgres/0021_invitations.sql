-- Invitations to join an account. The link's token is
-- <id><secret>: the row is found by its id and the secret's SHA-256
-- compared in constant time, so the database holds no usable link.
-- A resend or a second invitation of the same email replaces the row
-- (status 'replaced') with a new one, so rows created in the last day
-- count every invitation mail an account sent, on every replica.
CREATE TABLE invitations (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    email varchar(254) NOT NULL,
    role varchar(16) NOT NULL,
    secret_hash varchar(64) NOT NULL,
    inviter_email varchar(254) NOT NULL,
    status varchar(16) NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT fk_invitations_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    CONSTRAINT chk_invitations_role CHECK (role IN ('owner', 'member', 'viewer')),
    CONSTRAINT chk_invitations_status CHECK (status IN ('pending', 'accepted', 'revoked', 'replaced'))
);
CREATE INDEX idx_invitations_account ON invitations (account_id, created_at);

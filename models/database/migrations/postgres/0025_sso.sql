-- Single sign-on with OpenID Connect (issue 21). sso_identities ties a
-- provider's subject to a user; sso_domains links an email domain to one
-- account and one provider, whose people must sign in through it and may
-- join that account just in time with its default role; sso_logins holds
-- a sign-in under way (state, nonce, PKCE verifier), bound to the browser
-- by the SHA-256 of a cookie, for ten minutes and one use, so any replica
-- can take the provider's callback.
CREATE TABLE sso_identities (
    provider varchar(64) NOT NULL,
    subject varchar(255) NOT NULL,
    user_id varchar(32) NOT NULL,
    email varchar(254) NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (provider, subject),
    CONSTRAINT fk_sso_identities_user FOREIGN KEY (user_id) REFERENCES users (id)
);
CREATE INDEX idx_sso_identities_user ON sso_identities (user_id);
CREATE TABLE sso_domains (
    domain varchar(253) NOT NULL,
    account_id varchar(32) NOT NULL,
    provider varchar(64) NOT NULL,
    default_role varchar(16) NOT NULL,
    created_by varchar(254) NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (domain),
    CONSTRAINT fk_sso_domains_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    CONSTRAINT chk_sso_domains_default_role CHECK (default_role IN ('owner', 'member', 'viewer'))
);
CREATE INDEX idx_sso_domains_account ON sso_domains (account_id);
CREATE TABLE sso_logins (
    state_hash varchar(64) NOT NULL,
    browser_hash varchar(64) NOT NULL,
    provider varchar(64) NOT NULL,
    nonce varchar(64) NOT NULL,
    verifier varchar(128) NOT NULL,
    next varchar(2048) NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (state_hash)
);
CREATE INDEX idx_sso_logins_expires_at ON sso_logins (expires_at);

-- Accounts have members with roles. Every user of an account so far was
-- its one owner; they become its first owner, and their API keys (which
-- already name their user) stay theirs. Support staff belong to no
-- account and get no membership. users.account_id stays: it is the
-- account created with the user, the one a session starts on.
CREATE TABLE memberships (
    account_id varchar(32) NOT NULL,
    user_id varchar(32) NOT NULL,
    role varchar(16) NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, user_id),
    CONSTRAINT fk_memberships_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    CONSTRAINT fk_memberships_user FOREIGN KEY (user_id) REFERENCES users (id),
    CONSTRAINT chk_memberships_role CHECK (role IN ('owner', 'member', 'viewer'))
);
CREATE INDEX idx_memberships_user_id ON memberships (user_id);
INSERT INTO memberships (account_id, user_id, role, created_at, updated_at)
    SELECT account_id, id, 'owner', coalesce(created_at, now()), coalesce(created_at, now())
    FROM users WHERE account_id IS NOT NULL AND role = 'owner';
-- The account a dashboard session acts on; NULL until one is chosen, when
-- the user's own account (or first membership) is used.
ALTER TABLE sessions ADD COLUMN account_id varchar(32) REFERENCES accounts (id);

-- An audit event's actor may now have been a member or a viewer.
ALTER TABLE audit_events
    DROP CONSTRAINT chk_audit_events_actor_role,
    ADD CONSTRAINT chk_audit_events_actor_role
        CHECK (actor_role IN ('owner', 'member', 'viewer', 'support', 'operator', 'system'));

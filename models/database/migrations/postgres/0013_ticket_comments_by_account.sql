-- 0013_ticket_comments_by_account: each comment carries its ticket's
-- account, and comments are keyed by account, ticket and seq, the order
-- the ticket list reads them. On SQLite that clusters an account's
-- comments, which the list reads from a cold page cache; here the key
-- and the columns follow, so one set of models serves both. A ticket
-- never changes account, so the copy of its account_id is never stale.
-- Released: never edit; add a step.

ALTER TABLE ticket_comments ADD COLUMN account_id varchar(32);
UPDATE ticket_comments c SET account_id = t.account_id FROM tickets t WHERE t.id = c.ticket_id;
ALTER TABLE ticket_comments
    ALTER COLUMN account_id SET NOT NULL,
    ADD CONSTRAINT fk_ticket_comments_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    DROP CONSTRAINT ticket_comments_pkey,
    ADD PRIMARY KEY (account_id, ticket_id, seq);
CREATE UNIQUE INDEX idx_ticket_comments_id ON ticket_comments (id);

-- 0014_tickets_by_account: tickets keyed by account and id, as on SQLite,
-- where that clusters an account's tickets for the list (see the SQLite
-- step). id stays unique, by index, for the tables that refer to it;
-- their foreign keys are dropped and made again around the key's change.
-- Released: never edit; add a step.

ALTER TABLE ticket_comments DROP CONSTRAINT fk_ticket_comments_ticket;
ALTER TABLE ticket_attachments DROP CONSTRAINT fk_ticket_attachments_ticket;
ALTER TABLE ticket_activities DROP CONSTRAINT fk_ticket_activities_ticket;
ALTER TABLE webhook_events DROP CONSTRAINT fk_webhook_events_ticket;

ALTER TABLE tickets DROP CONSTRAINT tickets_pkey, ADD PRIMARY KEY (account_id, id);
CREATE UNIQUE INDEX idx_tickets_id ON tickets (id);

ALTER TABLE ticket_comments ADD CONSTRAINT fk_ticket_comments_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id);
ALTER TABLE ticket_attachments ADD CONSTRAINT fk_ticket_attachments_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id);
ALTER TABLE ticket_activities ADD CONSTRAINT fk_ticket_activities_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id);
ALTER TABLE webhook_events ADD CONSTRAINT fk_webhook_events_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id);

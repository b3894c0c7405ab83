-- 0007_support_desk: the support desk. A ticket may be assigned to a support
-- user; ticket_activities is the ticket's thread beside its comments:
-- status and assignment changes (which owners see) and internal notes
-- (which only staff see), numbered per ticket like comments.

ALTER TABLE tickets ADD COLUMN assignee_user_id varchar(32)
    CONSTRAINT fk_tickets_assignee_user REFERENCES users (id);
CREATE INDEX idx_tickets_assignee ON tickets (assignee_user_id);

CREATE TABLE ticket_activities (
    id varchar(32) NOT NULL,
    ticket_id varchar(32) NOT NULL,
    seq bigint NOT NULL,
    kind varchar(16) NOT NULL,
    actor_user_id varchar(32),
    actor varchar(254) NOT NULL,
    by_staff boolean NOT NULL,
    from_value varchar(254),
    to_value varchar(254),
    body text,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT fk_ticket_activities_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id),
    CONSTRAINT fk_ticket_activities_actor_user FOREIGN KEY (actor_user_id) REFERENCES users (id),
    CONSTRAINT chk_ticket_activities_kind CHECK (kind IN ('status', 'assignment', 'note'))
);
CREATE UNIQUE INDEX idx_ticket_activities_seq ON ticket_activities (ticket_id, seq);

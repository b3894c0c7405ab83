-- 0006_ticket_attachments: files attached to support tickets. The bytes
-- live in the database (ticket_attachment_contents), so that every replica
-- serves them and backups and `cloudplane copy` carry them; they are kept
-- apart from the metadata so that listing never reads a file.
CREATE TABLE ticket_attachments (
    id varchar(32) NOT NULL,
    ticket_id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    created_by_user_id varchar(32) NOT NULL,
    filename varchar(255) NOT NULL,
    content_type varchar(255) NOT NULL,
    size_bytes bigint NOT NULL,
    status varchar(16) NOT NULL,
    created_at timestamptz NOT NULL,
    upload_expires_at timestamptz NOT NULL,
    uploaded_at timestamptz,
    deleted_at timestamptz,
    PRIMARY KEY (id),
    CONSTRAINT fk_ticket_attachments_ticket FOREIGN KEY (ticket_id) REFERENCES tickets (id),
    CONSTRAINT fk_ticket_attachments_account FOREIGN KEY (account_id) REFERENCES accounts (id),
    CONSTRAINT fk_ticket_attachments_created_by_user FOREIGN KEY (created_by_user_id) REFERENCES users (id),
    CONSTRAINT chk_ticket_attachments_status CHECK (status IN ('pending', 'uploaded', 'failed', 'deleted')),
    CONSTRAINT chk_ticket_attachments_size CHECK (size_bytes >= 1)
);
CREATE INDEX idx_ticket_attachments_ticket ON ticket_attachments (ticket_id, created_at);
CREATE INDEX idx_ticket_attachments_account ON ticket_attachments (account_id, status);
CREATE INDEX idx_ticket_attachments_expiry ON ticket_attachments (status, upload_expires_at);

CREATE TABLE ticket_attachment_contents (
    attachment_id varchar(32) NOT NULL,
    size_bytes bigint NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (attachment_id),
    CONSTRAINT fk_ticket_attachment_contents_attachment FOREIGN KEY (attachment_id) REFERENCES ticket_attachments (id)
);

-- The mail outbox: a message is written in the transaction of the change
-- that causes it (a reset requested, an email change) and sent by the mail
-- worker under a lease, as webhook deliveries are; its data is rendered at
-- send time and cleared once the message is sent or given up.
CREATE TABLE mail_messages (
    id varchar(32) NOT NULL,
    kind varchar(32) NOT NULL,
    recipient varchar(320) NOT NULL,
    subject varchar(256) NOT NULL,
    data text NOT NULL,
    status varchar(16) NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    attempts bigint NOT NULL,
    lease_owner varchar(32) NOT NULL,
    lease_until timestamptz,
    last_error varchar(1024) NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    sent_at timestamptz,
    PRIMARY KEY (id),
    CONSTRAINT chk_mail_messages_status CHECK (status IN ('pending', 'sent', 'failed'))
);
CREATE INDEX idx_mail_messages_due ON mail_messages (status, next_attempt_at);
CREATE INDEX idx_mail_messages_created_at ON mail_messages (created_at);

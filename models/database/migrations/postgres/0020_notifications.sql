-- Notifications (issue 20): a user's choices of which notifications they
-- get (a row only where they chose; no row is the topic's default), and
-- every notification queued, once per recipient, kind, subject and period:
-- the unique key makes a sweep run by several replicas at once, or a
-- batch of ticket replies, queue one mail.
CREATE TABLE notification_preferences (
    user_id varchar(32) NOT NULL,
    topic varchar(32) NOT NULL,
    enabled boolean NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, topic)
);
CREATE TABLE notifications (
    id varchar(32) NOT NULL,
    user_id varchar(32) NOT NULL,
    kind varchar(32) NOT NULL,
    subject_id varchar(32) NOT NULL,
    period varchar(64) NOT NULL,
    mail_id varchar(32) NOT NULL,
    count bigint NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (id)
);
CREATE UNIQUE INDEX idx_notifications_dedupe ON notifications (user_id, kind, subject_id, period);
CREATE INDEX idx_notifications_created_at ON notifications (created_at);

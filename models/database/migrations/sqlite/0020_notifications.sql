-- Notifications (issue 20): a user's choices of which notifications they
-- get (a row only where they chose; no row is the topic's default), and
-- every notification queued, once per recipient, kind, subject and period:
-- the unique key makes a sweep run by several replicas at once, or a
-- batch of ticket replies, queue one mail.
CREATE TABLE `notification_preferences` (`user_id` text,`topic` text,`enabled` numeric NOT NULL,`updated_at` datetime NOT NULL,PRIMARY KEY (`user_id`,`topic`));
CREATE TABLE `notifications` (`id` text,`user_id` text NOT NULL,`kind` text NOT NULL,`subject_id` text NOT NULL,`period` text NOT NULL,`mail_id` text NOT NULL,`count` integer NOT NULL,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,PRIMARY KEY (`id`));
CREATE UNIQUE INDEX `idx_notifications_dedupe` ON `notifications`(`user_id`,`kind`,`subject_id`,`period`);
CREATE INDEX `idx_notifications_created_at` ON `notifications`(`created_at`);

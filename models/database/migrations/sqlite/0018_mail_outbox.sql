-- The mail outbox: a message is written in the transaction of the change
-- that causes it (a reset requested, an email change) and sent by the mail
-- worker under a lease, as webhook deliveries are; its data is rendered at
-- send time and cleared once the message is sent or given up.
CREATE TABLE `mail_messages` (`id` text,`kind` text NOT NULL,`recipient` text NOT NULL,`subject` text NOT NULL,`data` text NOT NULL,`status` text NOT NULL,`next_attempt_at` datetime NOT NULL,`attempts` integer NOT NULL,`lease_owner` text NOT NULL,`lease_until` datetime,`last_error` text NOT NULL,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,`sent_at` datetime,PRIMARY KEY (`id`),CONSTRAINT `chk_mail_messages_status` CHECK (status IN ('pending', 'sent', 'failed')));
CREATE INDEX `idx_mail_messages_due` ON `mail_messages`(`status`,`next_attempt_at`);
CREATE INDEX `idx_mail_messages_created_at` ON `mail_messages`(`created_at`);

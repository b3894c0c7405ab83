-- 0014_tickets_by_account: tickets stored by account, then id, which is
-- time-ordered, so an account's tickets share a few table pages in the
-- order they were opened. A list read up to 101 rows, each on a table
-- page of its own among every account's tickets, and SQLite drops a
-- reader's page cache whenever another connection has written. The
-- (account_id, created_at) index now carries id, so the list's order
-- needs no sort either. id stays unique: comments, activities,
-- attachments and webhook events refer to it. Released: never edit; add a
-- step.

-- Renaming a table checks every trigger; 0013's name tickets, which is
-- gone between the DROP and the RENAME.
DROP TRIGGER `count_ticket_comments_insert`;
DROP TRIGGER `count_ticket_comments_delete`;

CREATE TABLE `tickets_new` (
  `id` text NOT NULL,
  `account_id` text NOT NULL,
  `created_by_user_id` text NOT NULL,
  `subject` text NOT NULL,
  `description` text NOT NULL,
  `request_type` text NOT NULL,
  `severity` text,
  `status` text NOT NULL,
  `instance_ip` text,
  `instance_id` text,
  `cluster_id` text,
  `source` text NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  `resolved_at` datetime,
  `assignee_user_id` text REFERENCES `users`(`id`),
  `comment_rows` integer NOT NULL DEFAULT 0,
  `comment_bytes` integer NOT NULL DEFAULT 0,
  `description_author` text,
  PRIMARY KEY (`account_id`, `id`),
  CONSTRAINT `fk_tickets_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `fk_tickets_created_by_user` FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`),
  CONSTRAINT `chk_tickets_request_type` CHECK (`request_type` IN ('incident', 'service_request', 'automated_event')),
  CONSTRAINT `chk_tickets_severity` CHECK (`severity` IN ('sev_1', 'sev_2', 'sev_3')),
  CONSTRAINT `chk_tickets_status` CHECK (`status` IN ('new', 'open', 'pending', 'on_hold', 'solved', 'closed')),
  CONSTRAINT `chk_tickets_source` CHECK (`source` IN ('api', 'dashboard'))
) WITHOUT ROWID;
INSERT INTO `tickets_new` (`id`, `account_id`, `created_by_user_id`, `subject`, `description`, `request_type`,
    `severity`, `status`, `instance_ip`, `instance_id`, `cluster_id`, `source`, `created_at`, `updated_at`,
    `resolved_at`, `assignee_user_id`, `comment_rows`, `comment_bytes`, `description_author`)
  SELECT `id`, `account_id`, `created_by_user_id`, `subject`, `description`, `request_type`,
    `severity`, `status`, `instance_ip`, `instance_id`, `cluster_id`, `source`, `created_at`, `updated_at`,
    `resolved_at`, `assignee_user_id`, `comment_rows`, `comment_bytes`, `description_author`
  FROM `tickets`;
DROP TABLE `tickets`;
ALTER TABLE `tickets_new` RENAME TO `tickets`;
CREATE UNIQUE INDEX `idx_tickets_id` ON `tickets`(`id`);
CREATE INDEX `idx_tickets_updated` ON `tickets`(`updated_at`);
CREATE INDEX `idx_tickets_created` ON `tickets`(`created_at`);
CREATE INDEX `idx_tickets_status` ON `tickets`(`status`);
CREATE INDEX `idx_tickets_account_updated` ON `tickets`(`account_id`,`updated_at`);
CREATE INDEX `idx_tickets_account_created` ON `tickets`(`account_id`,`created_at`);
CREATE INDEX `idx_tickets_assignee` ON `tickets`(`assignee_user_id`);

CREATE TRIGGER `count_ticket_comments_insert` AFTER INSERT ON `ticket_comments` BEGIN
  UPDATE `tickets` SET `comment_rows` = `comment_rows` + 1,
    `comment_bytes` = `comment_bytes` + length(CAST(NEW.`body` AS BLOB)),
    `description_author` = CASE WHEN NEW.`seq` = 0 THEN NEW.`author` ELSE `description_author` END
  WHERE `account_id` = NEW.`account_id` AND `id` = NEW.`ticket_id`;
END;
CREATE TRIGGER `count_ticket_comments_delete` AFTER DELETE ON `ticket_comments` BEGIN
  UPDATE `tickets` SET `comment_rows` = `comment_rows` - 1,
    `comment_bytes` = `comment_bytes` - length(CAST(OLD.`body` AS BLOB)),
    `description_author` = CASE WHEN OLD.`seq` = 0 THEN NULL ELSE `description_author` END
  WHERE `account_id` = OLD.`account_id` AND `id` = OLD.`ticket_id`;
END;

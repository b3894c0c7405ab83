-- 0013_ticket_comments_by_account: ticket comments stored in the order the
-- ticket list reads them, by account, then ticket, then seq. The API's
-- list reads every comment of a page of up to 100 tickets; each comment
-- was a row of its own table page, among every account's comments, and
-- SQLite drops a reader's page cache whenever another connection has
-- written, so under load each page came from the file again: the comment
-- read grew to most of the list's time as tickets filled their page.
-- Clustered, an account's comments share a handful of pages. A ticket
-- never changes account, so the copy of its account_id is never stale.
-- Released: never edit; add a step.

CREATE TABLE `ticket_comments_new` (
  `account_id` text NOT NULL,
  `ticket_id` text NOT NULL,
  `seq` integer NOT NULL,
  `id` text NOT NULL,
  `author_user_id` text,
  `author` text NOT NULL,
  `body` text NOT NULL,
  `created_at` datetime NOT NULL,
  PRIMARY KEY (`account_id`, `ticket_id`, `seq`),
  CONSTRAINT `fk_ticket_comments_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `fk_ticket_comments_ticket` FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`),
  CONSTRAINT `fk_ticket_comments_author_user` FOREIGN KEY (`author_user_id`) REFERENCES `users`(`id`)
) WITHOUT ROWID;
INSERT INTO `ticket_comments_new` (`account_id`, `ticket_id`, `seq`, `id`, `author_user_id`, `author`, `body`, `created_at`)
  SELECT t.`account_id`, c.`ticket_id`, c.`seq`, c.`id`, c.`author_user_id`, c.`author`, c.`body`, c.`created_at`
  FROM `ticket_comments` c LEFT JOIN `tickets` t ON t.`id` = c.`ticket_id`; -- an orphan fails NOT NULL, not vanishes
DROP TABLE `ticket_comments`;
ALTER TABLE `ticket_comments_new` RENAME TO `ticket_comments`;
CREATE UNIQUE INDEX `idx_ticket_comments_id` ON `ticket_comments`(`id`);
CREATE UNIQUE INDEX `idx_ticket_comments_seq` ON `ticket_comments`(`ticket_id`,`seq`);

-- 0012's triggers went with the old table.
CREATE TRIGGER `count_ticket_comments_insert` AFTER INSERT ON `ticket_comments` BEGIN
  UPDATE `tickets` SET `comment_rows` = `comment_rows` + 1,
    `comment_bytes` = `comment_bytes` + length(CAST(NEW.`body` AS BLOB)),
    `description_author` = CASE WHEN NEW.`seq` = 0 THEN NEW.`author` ELSE `description_author` END
  WHERE `id` = NEW.`ticket_id`;
END;
CREATE TRIGGER `count_ticket_comments_delete` AFTER DELETE ON `ticket_comments` BEGIN
  UPDATE `tickets` SET `comment_rows` = `comment_rows` - 1,
    `comment_bytes` = `comment_bytes` - length(CAST(OLD.`body` AS BLOB)),
    `description_author` = CASE WHEN OLD.`seq` = 0 THEN NULL ELSE `description_author` END
  WHERE `id` = OLD.`ticket_id`;
END;

-- 0027_ticket_waiting: since when a ticket waits for support, for the
-- queue's triage order and its "Waiting" column. It is the time of the
-- customer's first message after the last reply from support (the
-- ticket's creation when support never replied); NULL while support spoke
-- last. Existing tickets get it from their comments.

ALTER TABLE `tickets` ADD COLUMN `waiting_since` datetime;
UPDATE `tickets` SET `waiting_since` = (
  SELECT MIN(c.`created_at`) FROM `ticket_comments` c
  WHERE c.`account_id` = `tickets`.`account_id` AND c.`ticket_id` = `tickets`.`id` AND c.`author` <> 'support'
    AND c.`seq` > COALESCE((SELECT MAX(s.`seq`) FROM `ticket_comments` s
      WHERE s.`account_id` = `tickets`.`account_id` AND s.`ticket_id` = `tickets`.`id` AND s.`author` = 'support'), -1));
CREATE INDEX `idx_tickets_status_waiting` ON `tickets`(`status`,`waiting_since`);

-- 0007_support_desk: the support desk. A ticket may be assigned to a support
-- user; ticket_activities is the ticket's thread beside its comments:
-- status and assignment changes (which owners see) and internal notes
-- (which only staff see), numbered per ticket like comments.
--
-- SQLite's ADD COLUMN accepts a REFERENCES clause when the default is NULL.

ALTER TABLE `tickets` ADD COLUMN `assignee_user_id` text REFERENCES `users`(`id`);
CREATE INDEX `idx_tickets_assignee` ON `tickets`(`assignee_user_id`);

CREATE TABLE `ticket_activities` (
  `id` text,
  `ticket_id` text NOT NULL,
  `seq` integer NOT NULL,
  `kind` text NOT NULL,
  `actor_user_id` text,
  `actor` text NOT NULL,
  `by_staff` numeric NOT NULL,
  `from_value` text,
  `to_value` text,
  `body` text,
  `created_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_ticket_activities_ticket` FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`),
  CONSTRAINT `fk_ticket_activities_actor_user` FOREIGN KEY (`actor_user_id`) REFERENCES `users`(`id`),
  CONSTRAINT `chk_ticket_activities_kind` CHECK (`kind` IN ('status', 'assignment', 'note'))
);
CREATE UNIQUE INDEX `idx_ticket_activities_seq` ON `ticket_activities`(`ticket_id`,`seq`);

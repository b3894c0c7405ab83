-- 0012_ticket_text_counts: each ticket carries how many comments it has
-- (the description included), how many bytes their bodies take and who
-- wrote the description, kept by a trigger on ticket_comments. A list of
-- tickets counted every listed ticket's comments in an aggregate that
-- read each comment's row: a third of the API's ticket list, growing
-- with every comment, and a commented ticket's write counted its
-- comments again under the ticket's lock. Comments are never edited or
-- deleted one by one; the delete trigger keeps the counts true for
-- whatever removes them. Released: never edit; add a step.

ALTER TABLE `tickets` ADD COLUMN `comment_rows` integer NOT NULL DEFAULT 0;
ALTER TABLE `tickets` ADD COLUMN `comment_bytes` integer NOT NULL DEFAULT 0;
ALTER TABLE `tickets` ADD COLUMN `description_author` text;

UPDATE `tickets` SET
  `comment_rows` = (SELECT count(*) FROM `ticket_comments` c WHERE c.`ticket_id` = `tickets`.`id`),
  `comment_bytes` = (SELECT coalesce(sum(length(CAST(c.`body` AS BLOB))), 0) FROM `ticket_comments` c WHERE c.`ticket_id` = `tickets`.`id`),
  `description_author` = (SELECT c.`author` FROM `ticket_comments` c WHERE c.`ticket_id` = `tickets`.`id` AND c.`seq` = 0);

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

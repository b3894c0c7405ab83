-- 0035_resources_by_account: filesystems, firewall rulesets and SSH keys
-- stored by account, then id, as tickets are since 0014. Each
-- list read one table page per row, its rows spread among every account's,
-- and SQLite drops a reader's page cache whenever another connection has
-- written, so under writes every list read those pages again, one system
-- call each, and more of them as the accounts filled. Now an account's
-- rows share a few pages. id stays unique, by index: instance_filesystems
-- and instance_rulesets refer to it, and single objects are found by it.
-- The indexes led by the account alone, or by the account and id, are the
-- key now, and go. Instances stay as they are: terminated ones keep their
-- rows, and keyed by account SQLite read an account's whole history for
-- its live instances rather than go by idx_instances_live. Released: never
-- edit; add a step.

CREATE TABLE `filesystems_new` (
  `id` text NOT NULL,
  `account_id` text NOT NULL,
  `name` text NOT NULL,
  `region_name` text NOT NULL,
  `created_by_user_id` text NOT NULL,
  `bytes_used` integer NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  PRIMARY KEY (`account_id`, `id`),
  CONSTRAINT `fk_filesystems_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `fk_filesystems_created_by_user` FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`)
) WITHOUT ROWID;
INSERT INTO `filesystems_new` (`id`, `account_id`, `name`, `region_name`, `created_by_user_id`, `bytes_used`,
    `created_at`, `updated_at`)
  SELECT `id`, `account_id`, `name`, `region_name`, `created_by_user_id`, `bytes_used`, `created_at`, `updated_at`
  FROM `filesystems`;
DROP TABLE `filesystems`;
ALTER TABLE `filesystems_new` RENAME TO `filesystems`;
CREATE UNIQUE INDEX `idx_filesystems_id` ON `filesystems`(`id`);
CREATE UNIQUE INDEX `idx_filesystems_account_name` ON `filesystems`(`account_id`,`name`);
CREATE INDEX `idx_filesystems_search` ON `filesystems`(`account_id`,lower(name));
CREATE TRIGGER `count_filesystems_insert` AFTER INSERT ON `filesystems` BEGIN
  INSERT INTO `account_usage` (`account_id`, `resource`, `used`) VALUES (NEW.`account_id`, 'filesystems', 1)
    ON CONFLICT (`account_id`, `resource`) DO UPDATE SET `used` = `used` + 1;
END;
CREATE TRIGGER `count_filesystems_delete` AFTER DELETE ON `filesystems` BEGIN
  UPDATE `account_usage` SET `used` = `used` - 1 WHERE `account_id` = OLD.`account_id` AND `resource` = 'filesystems';
END;

CREATE TABLE `firewall_rulesets_new` (
  `id` text NOT NULL,
  `account_id` text NOT NULL,
  `name` text NOT NULL,
  `region_name` text NOT NULL,
  `rules` text NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  `version` integer NOT NULL DEFAULT 1,
  PRIMARY KEY (`account_id`, `id`),
  CONSTRAINT `fk_firewall_rulesets_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`)
) WITHOUT ROWID;
INSERT INTO `firewall_rulesets_new` (`id`, `account_id`, `name`, `region_name`, `rules`, `created_at`,
    `updated_at`, `version`)
  SELECT `id`, `account_id`, `name`, `region_name`, `rules`, `created_at`, `updated_at`, `version`
  FROM `firewall_rulesets`;
DROP TABLE `firewall_rulesets`;
ALTER TABLE `firewall_rulesets_new` RENAME TO `firewall_rulesets`;
CREATE UNIQUE INDEX `idx_firewall_rulesets_id` ON `firewall_rulesets`(`id`);
CREATE TRIGGER `count_firewall_rulesets_insert` AFTER INSERT ON `firewall_rulesets` BEGIN
  INSERT INTO `account_usage` (`account_id`, `resource`, `used`) VALUES (NEW.`account_id`, 'firewall_rulesets', 1)
    ON CONFLICT (`account_id`, `resource`) DO UPDATE SET `used` = `used` + 1;
END;
CREATE TRIGGER `count_firewall_rulesets_delete` AFTER DELETE ON `firewall_rulesets` BEGIN
  UPDATE `account_usage` SET `used` = `used` - 1 WHERE `account_id` = OLD.`account_id` AND `resource` = 'firewall_rulesets';
END;

CREATE TABLE `ssh_keys_new` (
  `id` text NOT NULL,
  `account_id` text NOT NULL,
  `name` text NOT NULL,
  `public_key` text NOT NULL,
  `created_at` datetime NOT NULL,
  PRIMARY KEY (`account_id`, `id`),
  CONSTRAINT `fk_ssh_keys_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`)
) WITHOUT ROWID;
INSERT INTO `ssh_keys_new` (`id`, `account_id`, `name`, `public_key`, `created_at`)
  SELECT `id`, `account_id`, `name`, `public_key`, `created_at` FROM `ssh_keys`;
DROP TABLE `ssh_keys`;
ALTER TABLE `ssh_keys_new` RENAME TO `ssh_keys`;
CREATE UNIQUE INDEX `idx_ssh_keys_id` ON `ssh_keys`(`id`);
CREATE UNIQUE INDEX `idx_ssh_keys_account_name` ON `ssh_keys`(`account_id`,`name`);
CREATE INDEX `idx_ssh_keys_search` ON `ssh_keys`(`account_id`,lower(name));

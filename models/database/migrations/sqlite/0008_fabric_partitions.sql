-- 0008_fabric_partitions: partitions of the compute fabric, one table, and
-- the account's quota of them (existing accounts get the default, 10).
-- Released: never edit; add a step.
--
-- SQLite's ALTER TABLE ADD COLUMN needs a default for a NOT NULL column,
-- and the column must have none (the account is always created with its
-- quota), so accounts is rebuilt as in 0002.

CREATE TABLE `accounts_new` (
  `id` text,
  `status` text NOT NULL,
  `billing_address_valid` numeric NOT NULL,
  `filesystem_quota` integer NOT NULL,
  `ruleset_quota` integer NOT NULL,
  `fabric_partition_quota` integer NOT NULL,
  `inbound_rules` text NOT NULL,
  `global_rules` text NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `chk_accounts_status` CHECK (`status` IN ('active', 'inactive'))
);
INSERT INTO `accounts_new` (`id`, `status`, `billing_address_valid`, `filesystem_quota`, `ruleset_quota`,
  `fabric_partition_quota`, `inbound_rules`, `global_rules`, `created_at`, `updated_at`)
SELECT `id`, `status`, `billing_address_valid`, `filesystem_quota`, `ruleset_quota`,
  10, `inbound_rules`, `global_rules`, `created_at`, `updated_at` FROM `accounts`;
DROP TABLE `accounts`;
ALTER TABLE `accounts_new` RENAME TO `accounts`;

CREATE TABLE `fabric_partitions` (
  `id` text,
  `account_id` text NOT NULL,
  `workspace_id` text NOT NULL,
  `name` text NOT NULL,
  `region_name` text NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_fabric_partitions_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`)
);
CREATE UNIQUE INDEX `idx_fabric_partitions_account_region_name` ON `fabric_partitions`(`account_id`,`region_name`,`name`);

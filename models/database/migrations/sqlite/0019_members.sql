-- Accounts have members with roles. Every user of an account so far was
-- its one owner; they become its first owner, and their API keys (which
-- already name their user) stay theirs. Support staff belong to no
-- account and get no membership. users.account_id stays: it is the
-- account created with the user, the one a session starts on.
CREATE TABLE `memberships` (
  `account_id` text,
  `user_id` text,
  `role` text NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  PRIMARY KEY (`account_id`,`user_id`),
  CONSTRAINT `fk_memberships_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `fk_memberships_user` FOREIGN KEY (`user_id`) REFERENCES `users`(`id`),
  CONSTRAINT `chk_memberships_role` CHECK (`role` IN ('owner', 'member', 'viewer'))
);
CREATE INDEX `idx_memberships_user_id` ON `memberships`(`user_id`);
INSERT INTO `memberships` (`account_id`, `user_id`, `role`, `created_at`, `updated_at`)
  SELECT `account_id`, `id`, 'owner', coalesce(`created_at`, CURRENT_TIMESTAMP), coalesce(`created_at`, CURRENT_TIMESTAMP)
  FROM `users` WHERE `account_id` IS NOT NULL AND `role` = 'owner';
-- The account a dashboard session acts on; NULL until one is chosen, when
-- the user's own account (or first membership) is used.
ALTER TABLE `sessions` ADD COLUMN `account_id` text REFERENCES `accounts`(`id`);

-- An audit event's actor may now have been a member or a viewer. SQLite
-- cannot change a CHECK constraint in place: the table is rebuilt as 0011
-- built it, with the wider list.
CREATE TABLE `audit_events_new` (
  `id` text NOT NULL,
  `account_id` text NOT NULL,
  `event_time` datetime NOT NULL,
  `service_name` text NOT NULL,
  `resource_name` text NOT NULL,
  `action` text NOT NULL,
  `catalog_version` text NOT NULL,
  `actor_lrn` text,
  `resource_lrns` text NOT NULL,
  `resource_owner_lrn` text,
  `request_api_key_lrn` text,
  `additional_details` text NOT NULL,
  `actor_role` text CONSTRAINT `chk_audit_events_actor_role` CHECK (`actor_role` IN ('owner', 'member', 'viewer', 'support', 'operator', 'system')),
  PRIMARY KEY (`account_id`, `event_time`, `id`)
) WITHOUT ROWID;
INSERT INTO `audit_events_new` (`id`, `account_id`, `event_time`, `service_name`, `resource_name`, `action`,
    `catalog_version`, `actor_lrn`, `resource_lrns`, `resource_owner_lrn`, `request_api_key_lrn`,
    `additional_details`, `actor_role`)
  SELECT `id`, `account_id`, `event_time`, `service_name`, `resource_name`, `action`, `catalog_version`,
    `actor_lrn`, `resource_lrns`, `resource_owner_lrn`, `request_api_key_lrn`, `additional_details`, `actor_role`
  FROM `audit_events`;
DROP TABLE `audit_events`;
ALTER TABLE `audit_events_new` RENAME TO `audit_events`;
CREATE UNIQUE INDEX `idx_audit_events_id` ON `audit_events`(`id`);
CREATE INDEX `idx_audit_account_type_time` ON `audit_events`(`account_id`,`service_name`,`resource_name`,`event_time`,`id`);

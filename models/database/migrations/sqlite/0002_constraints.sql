-- 0002_constraints: foreign keys where rows refer to each other, and CHECK
-- constraints on columns with a closed set of values. Rows of an older
-- database that break them make the step fail (it is rolled back) with
-- the constraint's name: fix or remove those rows and migrate again.
-- Audit events keep no foreign key: the log outlives what it names, and
-- support staff's events have no account. tickets.instance_id is what the
-- customer typed, not a reference. Released: never edit; add a step.
--
-- SQLite's ALTER TABLE cannot add constraints, so each table is rebuilt:
-- the runner turns foreign keys off around the step and runs
-- PRAGMA foreign_key_check before it commits.

CREATE TABLE `accounts_new` (
  `id` text,
  `status` text NOT NULL,
  `billing_address_valid` numeric NOT NULL,
  `filesystem_quota` integer NOT NULL,
  `ruleset_quota` integer NOT NULL,
  `inbound_rules` text NOT NULL,
  `global_rules` text NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `chk_accounts_status` CHECK (`status` IN ('active', 'inactive'))
);
INSERT INTO `accounts_new` SELECT * FROM `accounts`;
DROP TABLE `accounts`;
ALTER TABLE `accounts_new` RENAME TO `accounts`;

CREATE TABLE `users_new` (
  `id` text,
  `account_id` text,
  `email` text NOT NULL,
  `password_hash` text NOT NULL,
  `role` text NOT NULL,
  `status` text NOT NULL,
  `created_at` datetime,
  `updated_at` datetime,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_users_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `chk_users_role` CHECK (`role` IN ('owner', 'support')),
  CONSTRAINT `chk_users_status` CHECK (`status` IN ('active', 'deactivated'))
);
INSERT INTO `users_new` SELECT * FROM `users`;
DROP TABLE `users`;
ALTER TABLE `users_new` RENAME TO `users`;
CREATE UNIQUE INDEX `idx_users_email` ON `users`(`email`);
CREATE INDEX `idx_users_account_id` ON `users`(`account_id`);

CREATE TABLE `api_keys_new` (
  `id` text,
  `account_id` text NOT NULL,
  `user_id` text NOT NULL,
  `name` text NOT NULL,
  `prefix` text NOT NULL,
  `hash` text NOT NULL,
  `created_at` datetime,
  `last_used_at` datetime,
  `revoked_at` datetime,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_api_keys_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `fk_api_keys_user` FOREIGN KEY (`user_id`) REFERENCES `users`(`id`)
);
INSERT INTO `api_keys_new` SELECT * FROM `api_keys`;
DROP TABLE `api_keys`;
ALTER TABLE `api_keys_new` RENAME TO `api_keys`;
CREATE UNIQUE INDEX `idx_api_keys_hash` ON `api_keys`(`hash`);
CREATE UNIQUE INDEX `idx_api_keys_prefix` ON `api_keys`(`prefix`);
CREATE INDEX `idx_api_keys_account_id` ON `api_keys`(`account_id`);

CREATE TABLE `filesystems_new` (
  `id` text,
  `account_id` text NOT NULL,
  `name` text NOT NULL,
  `region_name` text NOT NULL,
  `created_by_user_id` text NOT NULL,
  `bytes_used` integer NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_filesystems_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `fk_filesystems_created_by_user` FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`)
);
INSERT INTO `filesystems_new` SELECT * FROM `filesystems`;
DROP TABLE `filesystems`;
ALTER TABLE `filesystems_new` RENAME TO `filesystems`;
CREATE UNIQUE INDEX `idx_filesystems_account_name` ON `filesystems`(`account_id`,`name`);

CREATE TABLE `firewall_rulesets_new` (
  `id` text,
  `account_id` text NOT NULL,
  `name` text NOT NULL,
  `region_name` text NOT NULL,
  `rules` text NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_firewall_rulesets_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`)
);
INSERT INTO `firewall_rulesets_new` SELECT * FROM `firewall_rulesets`;
DROP TABLE `firewall_rulesets`;
ALTER TABLE `firewall_rulesets_new` RENAME TO `firewall_rulesets`;
CREATE INDEX `idx_firewall_rulesets_account_id` ON `firewall_rulesets`(`account_id`);

CREATE TABLE `instances_new` (
  `id` text,
  `account_id` text NOT NULL,
  `name` text NOT NULL,
  `region_name` text NOT NULL,
  `instance_type_name` text NOT NULL,
  `status` text NOT NULL,
  `status_until` datetime,
  `ip` text NOT NULL,
  `private_ip` text NOT NULL,
  `hostname` text NOT NULL,
  `ssh_key_names` text NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  `tags` text NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_instances_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `chk_instances_status` CHECK (`status` IN ('booting', 'active', 'unhealthy', 'terminating', 'terminated'))
);
INSERT INTO `instances_new` SELECT * FROM `instances`;
DROP TABLE `instances`;
ALTER TABLE `instances_new` RENAME TO `instances`;
CREATE INDEX `idx_instances_status` ON `instances`(`status`);
CREATE INDEX `idx_instances_account_id` ON `instances`(`account_id`);

CREATE TABLE `instance_filesystems_new` (
  `instance_id` text,
  `filesystem_id` text,
  `mount_point` text NOT NULL,
  PRIMARY KEY (`instance_id`,`filesystem_id`),
  CONSTRAINT `fk_instance_filesystems_instance` FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`),
  CONSTRAINT `fk_instance_filesystems_filesystem` FOREIGN KEY (`filesystem_id`) REFERENCES `filesystems`(`id`)
);
INSERT INTO `instance_filesystems_new` SELECT * FROM `instance_filesystems`;
DROP TABLE `instance_filesystems`;
ALTER TABLE `instance_filesystems_new` RENAME TO `instance_filesystems`;
CREATE INDEX `idx_instance_filesystems_filesystem_id` ON `instance_filesystems`(`filesystem_id`);

CREATE TABLE `instance_rulesets_new` (
  `instance_id` text,
  `ruleset_id` text,
  PRIMARY KEY (`instance_id`,`ruleset_id`),
  CONSTRAINT `fk_instance_rulesets_instance` FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`),
  CONSTRAINT `fk_instance_rulesets_ruleset` FOREIGN KEY (`ruleset_id`) REFERENCES `firewall_rulesets`(`id`)
);
INSERT INTO `instance_rulesets_new` SELECT * FROM `instance_rulesets`;
DROP TABLE `instance_rulesets`;
ALTER TABLE `instance_rulesets_new` RENAME TO `instance_rulesets`;
CREATE INDEX `idx_instance_rulesets_ruleset_id` ON `instance_rulesets`(`ruleset_id`);

CREATE TABLE `ssh_keys_new` (
  `id` text,
  `account_id` text NOT NULL,
  `name` text NOT NULL,
  `public_key` text NOT NULL,
  `created_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_ssh_keys_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`)
);
INSERT INTO `ssh_keys_new` SELECT * FROM `ssh_keys`;
DROP TABLE `ssh_keys`;
ALTER TABLE `ssh_keys_new` RENAME TO `ssh_keys`;
CREATE UNIQUE INDEX `idx_ssh_keys_account_name` ON `ssh_keys`(`account_id`,`name`);

CREATE TABLE `account_versions_new` (
  `account_id` text,
  `version` integer NOT NULL,
  PRIMARY KEY (`account_id`),
  CONSTRAINT `fk_account_versions_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`)
);
INSERT INTO `account_versions_new` SELECT * FROM `account_versions`;
DROP TABLE `account_versions`;
ALTER TABLE `account_versions_new` RENAME TO `account_versions`;

CREATE TABLE `sessions_new` (
  `id` text,
  `token_hash` text NOT NULL,
  `user_id` text NOT NULL,
  `csrf_token` text NOT NULL,
  `flash` text NOT NULL,
  `source_ip` text NOT NULL,
  `created_at` datetime NOT NULL,
  `last_seen_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_sessions_user` FOREIGN KEY (`user_id`) REFERENCES `users`(`id`)
);
INSERT INTO `sessions_new` SELECT * FROM `sessions`;
DROP TABLE `sessions`;
ALTER TABLE `sessions_new` RENAME TO `sessions`;
CREATE INDEX `idx_sessions_user_id` ON `sessions`(`user_id`);
CREATE UNIQUE INDEX `idx_sessions_token_hash` ON `sessions`(`token_hash`);

CREATE TABLE `tickets_new` (
  `id` text,
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
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_tickets_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `fk_tickets_created_by_user` FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`),
  CONSTRAINT `chk_tickets_request_type` CHECK (`request_type` IN ('incident', 'service_request', 'automated_event')),
  CONSTRAINT `chk_tickets_severity` CHECK (`severity` IN ('sev_1', 'sev_2', 'sev_3')),
  CONSTRAINT `chk_tickets_status` CHECK (`status` IN ('new', 'open', 'pending', 'on_hold', 'solved', 'closed')),
  CONSTRAINT `chk_tickets_source` CHECK (`source` IN ('api', 'dashboard'))
);
INSERT INTO `tickets_new` SELECT * FROM `tickets`;
DROP TABLE `tickets`;
ALTER TABLE `tickets_new` RENAME TO `tickets`;
CREATE INDEX `idx_tickets_updated` ON `tickets`(`updated_at`);
CREATE INDEX `idx_tickets_created` ON `tickets`(`created_at`);
CREATE INDEX `idx_tickets_status` ON `tickets`(`status`);
CREATE INDEX `idx_tickets_account_updated` ON `tickets`(`account_id`,`updated_at`);
CREATE INDEX `idx_tickets_account_created` ON `tickets`(`account_id`,`created_at`);

CREATE TABLE `ticket_comments_new` (
  `id` text,
  `ticket_id` text NOT NULL,
  `seq` integer NOT NULL,
  `author_user_id` text,
  `author` text NOT NULL,
  `body` text NOT NULL,
  `created_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_ticket_comments_ticket` FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`),
  CONSTRAINT `fk_ticket_comments_author_user` FOREIGN KEY (`author_user_id`) REFERENCES `users`(`id`)
);
INSERT INTO `ticket_comments_new` SELECT * FROM `ticket_comments`;
DROP TABLE `ticket_comments`;
ALTER TABLE `ticket_comments_new` RENAME TO `ticket_comments`;
CREATE UNIQUE INDEX `idx_ticket_comments_seq` ON `ticket_comments`(`ticket_id`,`seq`);

CREATE TABLE `webhook_endpoints_new` (
  `id` text,
  `account_id` text NOT NULL,
  `url` text NOT NULL,
  `token` text NOT NULL,
  `secret` text NOT NULL,
  `enabled` numeric NOT NULL,
  `disabled_reason` text NOT NULL,
  `disabled_at` datetime,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_webhook_endpoints_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`)
);
INSERT INTO `webhook_endpoints_new` SELECT * FROM `webhook_endpoints`;
DROP TABLE `webhook_endpoints`;
ALTER TABLE `webhook_endpoints_new` RENAME TO `webhook_endpoints`;
CREATE UNIQUE INDEX `idx_webhook_endpoints_account_id` ON `webhook_endpoints`(`account_id`);

CREATE TABLE `webhook_events_new` (
  `id` text,
  `account_id` text NOT NULL,
  `type` text NOT NULL,
  `ticket_id` text,
  `payload` text NOT NULL,
  `created_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_webhook_events_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `fk_webhook_events_ticket` FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`)
);
INSERT INTO `webhook_events_new` SELECT * FROM `webhook_events`;
DROP TABLE `webhook_events`;
ALTER TABLE `webhook_events_new` RENAME TO `webhook_events`;
CREATE INDEX `idx_webhook_events_created_at` ON `webhook_events`(`created_at`);
CREATE INDEX `idx_webhook_events_ticket_id` ON `webhook_events`(`ticket_id`);
CREATE INDEX `idx_webhook_events_account_id` ON `webhook_events`(`account_id`);

CREATE TABLE `webhook_deliveries_new` (
  `id` text,
  `event_id` text NOT NULL,
  `endpoint_id` text NOT NULL,
  `status` text NOT NULL,
  `next_attempt_at` datetime NOT NULL,
  `tries` integer NOT NULL,
  `attempts` integer NOT NULL,
  `lease_owner` text NOT NULL,
  `lease_until` datetime,
  `last_status_code` integer NOT NULL,
  `last_error` text NOT NULL,
  `created_at` datetime NOT NULL,
  `updated_at` datetime NOT NULL,
  `completed_at` datetime,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_webhook_deliveries_event` FOREIGN KEY (`event_id`) REFERENCES `webhook_events`(`id`),
  CONSTRAINT `fk_webhook_deliveries_endpoint` FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`),
  CONSTRAINT `chk_webhook_deliveries_status` CHECK (`status` IN ('pending', 'succeeded', 'failed'))
);
INSERT INTO `webhook_deliveries_new` SELECT * FROM `webhook_deliveries`;
DROP TABLE `webhook_deliveries`;
ALTER TABLE `webhook_deliveries_new` RENAME TO `webhook_deliveries`;
CREATE INDEX `idx_webhook_deliveries_created_at` ON `webhook_deliveries`(`created_at`);
CREATE INDEX `idx_webhook_deliveries_due` ON `webhook_deliveries`(`status`,`next_attempt_at`);
CREATE INDEX `idx_webhook_deliveries_endpoint_id` ON `webhook_deliveries`(`endpoint_id`);
CREATE UNIQUE INDEX `idx_webhook_deliveries_event_endpoint` ON `webhook_deliveries`(`event_id`,`endpoint_id`);

CREATE TABLE `webhook_attempts_new` (
  `id` text,
  `delivery_id` text NOT NULL,
  `number` integer NOT NULL,
  `endpoint_id` text NOT NULL,
  `url` text NOT NULL,
  `started_at` datetime NOT NULL,
  `duration` integer NOT NULL,
  `remote_addr` text NOT NULL,
  `request_headers` text NOT NULL,
  `status_code` integer NOT NULL,
  `response_headers` text NOT NULL,
  `response_body` blob,
  `body_truncated` numeric NOT NULL,
  `error_kind` text NOT NULL,
  `error` text NOT NULL,
  `succeeded` numeric NOT NULL,
  `created_at` datetime NOT NULL,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_webhook_attempts_delivery` FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`),
  CONSTRAINT `fk_webhook_attempts_endpoint` FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`)
);
INSERT INTO `webhook_attempts_new` SELECT * FROM `webhook_attempts`;
DROP TABLE `webhook_attempts`;
ALTER TABLE `webhook_attempts_new` RENAME TO `webhook_attempts`;
CREATE INDEX `idx_webhook_attempts_endpoint_time` ON `webhook_attempts`(`endpoint_id`,`started_at`);
CREATE UNIQUE INDEX `idx_webhook_attempts_number` ON `webhook_attempts`(`delivery_id`,`number`);

-- 0001_initial: the schema cloudplane created with GORM AutoMigrate up to
-- release 93d53d0, as SQLite stored it (sqlite_master keeps this text, so
-- it is kept byte for byte). Released: never edit; add a step.

CREATE TABLE `settings` (`name` text,`value` text NOT NULL,PRIMARY KEY (`name`));

CREATE TABLE `accounts` (`id` text,`status` text NOT NULL,`billing_address_valid` numeric NOT NULL,`filesystem_quota` integer NOT NULL,`ruleset_quota` integer NOT NULL,`inbound_rules` text NOT NULL,`global_rules` text NOT NULL,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,PRIMARY KEY (`id`));

CREATE TABLE `users` (`id` text,`account_id` text,`email` text NOT NULL,`password_hash` text NOT NULL,`role` text NOT NULL,`status` text NOT NULL,`created_at` datetime,`updated_at` datetime,PRIMARY KEY (`id`));
CREATE UNIQUE INDEX `idx_users_email` ON `users`(`email`);
CREATE INDEX `idx_users_account_id` ON `users`(`account_id`);

CREATE TABLE `api_keys` (`id` text,`account_id` text NOT NULL,`user_id` text NOT NULL,`name` text NOT NULL,`prefix` text NOT NULL,`hash` text NOT NULL,`created_at` datetime,`last_used_at` datetime,`revoked_at` datetime,PRIMARY KEY (`id`));
CREATE UNIQUE INDEX `idx_api_keys_hash` ON `api_keys`(`hash`);
CREATE UNIQUE INDEX `idx_api_keys_prefix` ON `api_keys`(`prefix`);
CREATE INDEX `idx_api_keys_account_id` ON `api_keys`(`account_id`);

CREATE TABLE `audit_events` (`id` text,`account_id` text NOT NULL,`event_time` datetime NOT NULL,`service_name` text NOT NULL,`resource_name` text NOT NULL,`action` text NOT NULL,`catalog_version` text NOT NULL,`actor_lrn` text,`resource_lrns` text NOT NULL,`resource_owner_lrn` text,`request_api_key_lrn` text,`additional_details` text NOT NULL,PRIMARY KEY (`id`));
CREATE INDEX `idx_audit_account_type_time` ON `audit_events`(`account_id`,`service_name`,`resource_name`,`event_time`,`id`);
CREATE INDEX `idx_audit_account_time` ON `audit_events`(`account_id`,`event_time`,`id`);

CREATE TABLE `filesystems` (`id` text,`account_id` text NOT NULL,`name` text NOT NULL,`region_name` text NOT NULL,`created_by_user_id` text NOT NULL,`bytes_used` integer NOT NULL,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,PRIMARY KEY (`id`));
CREATE UNIQUE INDEX `idx_filesystems_account_name` ON `filesystems`(`account_id`,`name`);

CREATE TABLE `firewall_rulesets` (`id` text,`account_id` text NOT NULL,`name` text NOT NULL,`region_name` text NOT NULL,`rules` text NOT NULL,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,PRIMARY KEY (`id`));
CREATE INDEX `idx_firewall_rulesets_account_id` ON `firewall_rulesets`(`account_id`);

CREATE TABLE `instances` (`id` text,`account_id` text NOT NULL,`name` text NOT NULL,`region_name` text NOT NULL,`instance_type_name` text NOT NULL,`status` text NOT NULL,`status_until` datetime,`ip` text NOT NULL,`private_ip` text NOT NULL,`hostname` text NOT NULL,`ssh_key_names` text NOT NULL,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,`tags` text NOT NULL,PRIMARY KEY (`id`));
CREATE INDEX `idx_instances_status` ON `instances`(`status`);
CREATE INDEX `idx_instances_account_id` ON `instances`(`account_id`);

CREATE TABLE `instance_filesystems` (`instance_id` text,`filesystem_id` text,`mount_point` text NOT NULL,PRIMARY KEY (`instance_id`,`filesystem_id`));
CREATE INDEX `idx_instance_filesystems_filesystem_id` ON `instance_filesystems`(`filesystem_id`);

CREATE TABLE `instance_rulesets` (`instance_id` text,`ruleset_id` text,PRIMARY KEY (`instance_id`,`ruleset_id`));
CREATE INDEX `idx_instance_rulesets_ruleset_id` ON `instance_rulesets`(`ruleset_id`);

CREATE TABLE `ssh_keys` (`id` text,`account_id` text NOT NULL,`name` text NOT NULL,`public_key` text NOT NULL,`created_at` datetime NOT NULL,PRIMARY KEY (`id`));
CREATE UNIQUE INDEX `idx_ssh_keys_account_name` ON `ssh_keys`(`account_id`,`name`);

CREATE TABLE `capacity_locks` (`instance_type_name` text,`region_name` text,PRIMARY KEY (`instance_type_name`,`region_name`));

CREATE TABLE `account_versions` (`account_id` text,`version` integer NOT NULL,PRIMARY KEY (`account_id`));

CREATE TABLE `sessions` (`id` text,`token_hash` text NOT NULL,`user_id` text NOT NULL,`csrf_token` text NOT NULL,`flash` text NOT NULL,`source_ip` text NOT NULL,`created_at` datetime NOT NULL,`last_seen_at` datetime NOT NULL,PRIMARY KEY (`id`));
CREATE INDEX `idx_sessions_user_id` ON `sessions`(`user_id`);
CREATE UNIQUE INDEX `idx_sessions_token_hash` ON `sessions`(`token_hash`);

CREATE TABLE `tickets` (`id` text,`account_id` text NOT NULL,`created_by_user_id` text NOT NULL,`subject` text NOT NULL,`description` text NOT NULL,`request_type` text NOT NULL,`severity` text,`status` text NOT NULL,`instance_ip` text,`instance_id` text,`cluster_id` text,`source` text NOT NULL,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,`resolved_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `idx_tickets_updated` ON `tickets`(`updated_at`);
CREATE INDEX `idx_tickets_created` ON `tickets`(`created_at`);
CREATE INDEX `idx_tickets_status` ON `tickets`(`status`);
CREATE INDEX `idx_tickets_account_updated` ON `tickets`(`account_id`,`updated_at`);
CREATE INDEX `idx_tickets_account_created` ON `tickets`(`account_id`,`created_at`);

CREATE TABLE `ticket_comments` (`id` text,`ticket_id` text NOT NULL,`seq` integer NOT NULL,`author_user_id` text,`author` text NOT NULL,`body` text NOT NULL,`created_at` datetime NOT NULL,PRIMARY KEY (`id`));
CREATE UNIQUE INDEX `idx_ticket_comments_seq` ON `ticket_comments`(`ticket_id`,`seq`);

CREATE TABLE `webhook_endpoints` (`id` text,`account_id` text NOT NULL,`url` text NOT NULL,`token` text NOT NULL,`secret` text NOT NULL,`enabled` numeric NOT NULL,`disabled_reason` text NOT NULL,`disabled_at` datetime,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,PRIMARY KEY (`id`));
CREATE UNIQUE INDEX `idx_webhook_endpoints_account_id` ON `webhook_endpoints`(`account_id`);

CREATE TABLE `webhook_events` (`id` text,`account_id` text NOT NULL,`type` text NOT NULL,`ticket_id` text,`payload` text NOT NULL,`created_at` datetime NOT NULL,PRIMARY KEY (`id`));
CREATE INDEX `idx_webhook_events_created_at` ON `webhook_events`(`created_at`);
CREATE INDEX `idx_webhook_events_ticket_id` ON `webhook_events`(`ticket_id`);
CREATE INDEX `idx_webhook_events_account_id` ON `webhook_events`(`account_id`);

CREATE TABLE `webhook_deliveries` (`id` text,`event_id` text NOT NULL,`endpoint_id` text NOT NULL,`status` text NOT NULL,`next_attempt_at` datetime NOT NULL,`tries` integer NOT NULL,`attempts` integer NOT NULL,`lease_owner` text NOT NULL,`lease_until` datetime,`last_status_code` integer NOT NULL,`last_error` text NOT NULL,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,`completed_at` datetime,PRIMARY KEY (`id`));
CREATE INDEX `idx_webhook_deliveries_created_at` ON `webhook_deliveries`(`created_at`);
CREATE INDEX `idx_webhook_deliveries_due` ON `webhook_deliveries`(`status`,`next_attempt_at`);
CREATE INDEX `idx_webhook_deliveries_endpoint_id` ON `webhook_deliveries`(`endpoint_id`);
CREATE UNIQUE INDEX `idx_webhook_deliveries_event_endpoint` ON `webhook_deliveries`(`event_id`,`endpoint_id`);

CREATE TABLE `webhook_attempts` (`id` text,`delivery_id` text NOT NULL,`number` integer NOT NULL,`endpoint_id` text NOT NULL,`url` text NOT NULL,`started_at` datetime NOT NULL,`duration` integer NOT NULL,`remote_addr` text NOT NULL,`request_headers` text NOT NULL,`status_code` integer NOT NULL,`response_headers` text NOT NULL,`response_body` blob,`body_truncated` numeric NOT NULL,`error_kind` text NOT NULL,`error` text NOT NULL,`succeeded` numeric NOT NULL,`created_at` datetime NOT NULL,PRIMARY KEY (`id`));
CREATE INDEX `idx_webhook_attempts_endpoint_time` ON `webhook_attempts`(`endpoint_id`,`started_at`);
CREATE UNIQUE INDEX `idx_webhook_attempts_number` ON `webhook_attempts`(`delivery_id`,`number`);

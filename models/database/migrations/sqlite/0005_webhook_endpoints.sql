-- Several webhook endpoints per account, each choosing the event types it
-- receives (existing endpoints keep receiving every ticket event); a
-- signing secret being rotated away, which signs beside the new one until
-- its grace period ends; and when an endpoint's run of failed attempts
-- began, so one that fails for days can be switched off. Released: never
-- edit; add a step.

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
  `event_types` text NOT NULL,
  `previous_secret` text NOT NULL,
  `previous_secret_until` datetime,
  `failing_since` datetime,
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_webhook_endpoints_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`)
);
INSERT INTO `webhook_endpoints_new`
  SELECT `id`, `account_id`, `url`, `token`, `secret`, `enabled`, `disabled_reason`, `disabled_at`, `created_at`, `updated_at`,
    '["ticket.created","ticket.status_changed","ticket.resolved"]', '', NULL, NULL
  FROM `webhook_endpoints`;
DROP TABLE `webhook_endpoints`;
ALTER TABLE `webhook_endpoints_new` RENAME TO `webhook_endpoints`;
CREATE INDEX `idx_webhook_endpoints_account_id` ON `webhook_endpoints`(`account_id`);

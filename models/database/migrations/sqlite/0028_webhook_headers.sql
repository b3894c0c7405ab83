-- 0030_webhook_headers: custom headers an owner adds to every delivery to
-- one endpoint, as a JSON array of {"name", "value"} (see
-- models.WebhookHeader for the rules on names and sizes).

ALTER TABLE `webhook_endpoints` ADD COLUMN `headers` text NOT NULL DEFAULT '[]';

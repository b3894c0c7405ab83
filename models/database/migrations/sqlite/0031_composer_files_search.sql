-- 0031_composer_files_search: a file support staff attach to an internal
-- note is internal too: only staff list, open and download it. Every file
-- before this step was attached by an owner, in the open.
-- And the search's lookups by the start of an id within an account, and
-- by a ticket's number (the last eight digits of its id, as pages show
-- it), in an account and across accounts.

ALTER TABLE `ticket_attachments` ADD COLUMN `internal` numeric NOT NULL DEFAULT false;
CREATE INDEX `idx_instances_account_ids` ON `instances`(`account_id`,`id`);
CREATE INDEX `idx_filesystems_account_ids` ON `filesystems`(`account_id`,`id`);
CREATE INDEX `idx_ssh_keys_account_ids` ON `ssh_keys`(`account_id`,`id`);
CREATE INDEX `idx_api_keys_account_ids` ON `api_keys`(`account_id`,`id`);
CREATE INDEX `idx_tickets_account_number` ON `tickets`(`account_id`,substr(id, 25));
CREATE INDEX `idx_tickets_number` ON `tickets`(substr(id, 25));

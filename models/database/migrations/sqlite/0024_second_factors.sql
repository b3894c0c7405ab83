-- Second factors (issue 21): a user's TOTP authenticator (on once a code
-- confirms it; last_step is the time step of the last code accepted, so
-- a code works once), their one-time recovery codes (only SHA-256 of
-- 80-bit codes), sign-ins waiting for their second step (only the token's
-- SHA-256; they expire after five minutes), and an account's rule that
-- every member must have a second factor.
CREATE TABLE `second_factors` (`user_id` text,`secret` text NOT NULL,`confirmed` numeric NOT NULL DEFAULT false,`last_step` integer NOT NULL DEFAULT 0,`created_at` datetime NOT NULL,`updated_at` datetime NOT NULL,PRIMARY KEY (`user_id`),
  CONSTRAINT `fk_second_factors_user` FOREIGN KEY (`user_id`) REFERENCES `users`(`id`));
CREATE TABLE `recovery_codes` (`id` text,`user_id` text NOT NULL,`code_hash` text NOT NULL,`used_at` datetime,`created_at` datetime NOT NULL,PRIMARY KEY (`id`),
  CONSTRAINT `fk_recovery_codes_user` FOREIGN KEY (`user_id`) REFERENCES `users`(`id`));
CREATE INDEX `idx_recovery_codes_user_id` ON `recovery_codes`(`user_id`);
CREATE TABLE `pending_sign_ins` (`id` text,`token_hash` text NOT NULL,`user_id` text NOT NULL,`source_ip` text NOT NULL,`user_agent` text NOT NULL,`method` text NOT NULL,`new_browser` numeric NOT NULL,`next_path` text NOT NULL,`reason` text NOT NULL,`attempts` integer NOT NULL,`expires_at` datetime NOT NULL,`created_at` datetime NOT NULL,PRIMARY KEY (`id`),
  CONSTRAINT `fk_pending_sign_ins_user` FOREIGN KEY (`user_id`) REFERENCES `users`(`id`),
  CONSTRAINT `chk_pending_sign_ins_reason` CHECK (`reason` IN ('second-factor', 'enrol')));
CREATE INDEX `idx_pending_sign_ins_user_id` ON `pending_sign_ins`(`user_id`);
CREATE UNIQUE INDEX `idx_pending_sign_ins_token_hash` ON `pending_sign_ins`(`token_hash`);
ALTER TABLE `accounts` ADD COLUMN `require_second_factor` numeric NOT NULL DEFAULT false;

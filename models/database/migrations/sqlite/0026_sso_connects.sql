-- Connecting an identity of a provider to a signed-in user (issue 21):
-- sso_connects marks a single sign-on under way (its sso_logins row, by
-- the same state hash) as started from the account page of user_id in
-- session_id, so its callback links the provider's subject to that user
-- instead of signing anyone in. Ten minutes, one use, like the login.
CREATE TABLE `sso_connects` (`state_hash` text,`user_id` text NOT NULL,`session_id` text NOT NULL,`expires_at` datetime NOT NULL,PRIMARY KEY (`state_hash`),
  CONSTRAINT `fk_sso_connects_user` FOREIGN KEY (`user_id`) REFERENCES `users`(`id`));
CREATE INDEX `idx_sso_connects_expires_at` ON `sso_connects`(`expires_at`);

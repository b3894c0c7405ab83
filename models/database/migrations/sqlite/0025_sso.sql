-- Single sign-on with OpenID Connect (issue 21). sso_identities ties a
-- provider's subject to a user; sso_domains links an email domain to one
-- account and one provider, whose people must sign in through it and may
-- join that account just in time with its default role; sso_logins holds
-- a sign-in under way (state, nonce, PKCE verifier), bound to the browser
-- by the SHA-256 of a cookie, for ten minutes and one use, so any replica
-- can take the provider's callback.
CREATE TABLE `sso_identities` (`provider` text NOT NULL,`subject` text NOT NULL,`user_id` text NOT NULL,`email` text NOT NULL,`created_at` datetime NOT NULL,PRIMARY KEY (`provider`,`subject`),
  CONSTRAINT `fk_sso_identities_user` FOREIGN KEY (`user_id`) REFERENCES `users`(`id`));
CREATE INDEX `idx_sso_identities_user` ON `sso_identities`(`user_id`);
CREATE TABLE `sso_domains` (`domain` text,`account_id` text NOT NULL,`provider` text NOT NULL,`default_role` text NOT NULL,`created_by` text NOT NULL,`created_at` datetime NOT NULL,PRIMARY KEY (`domain`),
  CONSTRAINT `fk_sso_domains_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`),
  CONSTRAINT `chk_sso_domains_default_role` CHECK (`default_role` IN ('owner', 'member', 'viewer')));
CREATE INDEX `idx_sso_domains_account` ON `sso_domains`(`account_id`);
CREATE TABLE `sso_logins` (`state_hash` text,`browser_hash` text NOT NULL,`provider` text NOT NULL,`nonce` text NOT NULL,`verifier` text NOT NULL,`next` text NOT NULL,`expires_at` datetime NOT NULL,PRIMARY KEY (`state_hash`));
CREATE INDEX `idx_sso_logins_expires_at` ON `sso_logins`(`expires_at`);

-- Passkeys (issue 21): WebAuthn credentials a user signs in with. The
-- credential id (base64url) is unique across users, so an assertion
-- names exactly one passkey; the sign count is kept to refuse a cloned
-- authenticator whose counter goes back. Ceremonies hold the challenge
-- between the options and the answer, keyed by the SHA-256 of a token in
-- an HttpOnly cookie, in the database so that any replica can finish
-- what another began; a finished or expired ceremony is deleted.
CREATE TABLE `passkeys` (`id` text,`user_id` text NOT NULL,`name` text NOT NULL,`credential_id` text NOT NULL,`public_key` blob NOT NULL,`sign_count` integer NOT NULL,`aaguid` text NOT NULL,`transports` text NOT NULL,`backup_eligible` numeric NOT NULL,`backup_state` numeric NOT NULL,`user_verified` numeric NOT NULL,`created_at` datetime NOT NULL,`last_used_at` datetime,PRIMARY KEY (`id`),
  CONSTRAINT `fk_passkeys_user` FOREIGN KEY (`user_id`) REFERENCES `users`(`id`));
CREATE INDEX `idx_passkeys_user_id` ON `passkeys`(`user_id`);
CREATE UNIQUE INDEX `idx_passkeys_credential_id` ON `passkeys`(`credential_id`);
CREATE TABLE `passkey_ceremonies` (`id` text,`purpose` text NOT NULL,`user_id` text,`session_data` text NOT NULL,`expires_at` datetime NOT NULL,PRIMARY KEY (`id`),
  CONSTRAINT `chk_passkey_ceremonies_purpose` CHECK (`purpose` IN ('register', 'sign_in', 'check')));
CREATE INDEX `idx_passkey_ceremonies_expires_at` ON `passkey_ceremonies`(`expires_at`);

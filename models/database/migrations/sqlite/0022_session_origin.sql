-- Sessions say where they came from and how their user proved who they
-- are (issue 21): the browser's User-Agent, the sign-in method, and when
-- the user last proved it, which sensitive actions check. Sessions from
-- before this step count as not recently proved.
ALTER TABLE `sessions` ADD COLUMN `user_agent` text NOT NULL DEFAULT "";
ALTER TABLE `sessions` ADD COLUMN `auth_method` text NOT NULL DEFAULT "password";
ALTER TABLE `sessions` ADD COLUMN `authenticated_at` datetime NOT NULL DEFAULT '1970-01-01T00:00:00Z';

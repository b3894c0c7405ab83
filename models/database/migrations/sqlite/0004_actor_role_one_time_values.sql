-- 0004_actor_role_one_time_values: the role the actor of an audit event
-- had, so the dashboard can say "Support" rather than "Another user";
-- events recorded before this step get the role their actor_lrn implies (a
-- user's current role). And a session's one-time value: a result shown on
-- the page a form redirects to, once (a generated private key, sealed
-- with the session's cookie, which the database does not hold).
-- Released: never edit; add a step.

ALTER TABLE `audit_events` ADD COLUMN `actor_role` text
  CONSTRAINT `chk_audit_events_actor_role` CHECK (`actor_role` IN ('owner', 'support', 'operator', 'system'));

UPDATE `audit_events` SET `actor_role` = CASE
  WHEN `actor_lrn` LIKE 'lrn:cloud:operator:%' THEN 'operator'
  WHEN `actor_lrn` LIKE 'lrn:cloud:service:%' THEN 'system'
  ELSE (SELECT `role` FROM `users` WHERE 'lrn:cloud:user:' || `users`.`id` = `audit_events`.`actor_lrn`)
END
WHERE `actor_lrn` IS NOT NULL;

ALTER TABLE `sessions` ADD COLUMN `once` text;

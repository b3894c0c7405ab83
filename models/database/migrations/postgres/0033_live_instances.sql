-- 0033_live_instances: the lists of instances and of rulesets read the
-- instances that are not terminated, and terminated ones keep their rows:
-- led by the account alone, those reads went over every instance the
-- account ever had. Live instances are the two ranges of this index: never
-- terminated (terminated_at NULL) and terminating until a later time.

CREATE INDEX idx_instances_live ON instances (account_id, terminated_at);

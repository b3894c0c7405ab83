-- 0035_resources_by_account: filesystems, firewall rulesets and SSH keys
-- keyed by account and id, as on SQLite, where that clusters an account's
-- rows for its lists (see the SQLite step). id stays unique, by index, for
-- instance_filesystems and instance_rulesets, whose foreign keys are
-- dropped and made again around the key's change. The indexes led by the
-- account alone, or by the account and id, are the key now, and go.
-- Instances stay as they are (see the SQLite step). Released: never edit;
-- add a step.

ALTER TABLE instance_filesystems DROP CONSTRAINT fk_instance_filesystems_filesystem;
ALTER TABLE instance_rulesets DROP CONSTRAINT fk_instance_rulesets_ruleset;

ALTER TABLE filesystems DROP CONSTRAINT filesystems_pkey, ADD PRIMARY KEY (account_id, id);
CREATE UNIQUE INDEX idx_filesystems_id ON filesystems (id);
DROP INDEX idx_filesystems_account_ids;

ALTER TABLE firewall_rulesets DROP CONSTRAINT firewall_rulesets_pkey, ADD PRIMARY KEY (account_id, id);
CREATE UNIQUE INDEX idx_firewall_rulesets_id ON firewall_rulesets (id);
DROP INDEX idx_firewall_rulesets_account_id;

ALTER TABLE ssh_keys DROP CONSTRAINT ssh_keys_pkey, ADD PRIMARY KEY (account_id, id);
CREATE UNIQUE INDEX idx_ssh_keys_id ON ssh_keys (id);
DROP INDEX idx_ssh_keys_account_ids;

ALTER TABLE instance_filesystems ADD CONSTRAINT fk_instance_filesystems_filesystem
  FOREIGN KEY (filesystem_id) REFERENCES filesystems (id);
ALTER TABLE instance_rulesets ADD CONSTRAINT fk_instance_rulesets_ruleset
  FOREIGN KEY (ruleset_id) REFERENCES firewall_rulesets (id);

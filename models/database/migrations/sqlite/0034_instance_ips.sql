-- 0034_instance_ips: a launch draws a public address and checks that no
-- instance that is not terminated holds it, inside its write transaction.
-- Without an index on the address that check read every instance there
-- ever was (terminated ones keep their rows), and on SQLite it did so in
-- the one writer every write waits for.

CREATE INDEX `idx_instances_ip` ON `instances`(`ip`);

-- 0010_account_usage: how many rows of each quota-bound table an account
-- owns, kept by triggers. Quota checks counted the rows under the account
-- lock, work that grew with every row. The triggers keep the count
-- whoever writes the rows: the server, the CLI commands, a copy. A change
-- locks the usage row after the account's row (creates) or the object's
-- (deletes) and before account_versions, so it closes no lock cycle.
-- Released: never edit; add a step.

CREATE TABLE account_usage (
    account_id varchar(32) NOT NULL,
    resource varchar(32) NOT NULL,
    used bigint NOT NULL,
    PRIMARY KEY (account_id, resource),
    CONSTRAINT fk_account_usage_account FOREIGN KEY (account_id) REFERENCES accounts (id)
);

INSERT INTO account_usage (account_id, resource, used)
    SELECT account_id, 'filesystems', count(*) FROM filesystems GROUP BY account_id
    UNION ALL SELECT account_id, 'firewall_rulesets', count(*) FROM firewall_rulesets GROUP BY account_id
    UNION ALL SELECT account_id, 'fabric_partitions', count(*) FROM fabric_partitions GROUP BY account_id
    UNION ALL SELECT account_id, 'webhook_endpoints', count(*) FROM webhook_endpoints GROUP BY account_id;

-- The table's name is the resource's.
CREATE FUNCTION count_account_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO account_usage (account_id, resource, used) VALUES (NEW.account_id, TG_TABLE_NAME, 1)
            ON CONFLICT (account_id, resource) DO UPDATE SET used = account_usage.used + 1;
    ELSE
        UPDATE account_usage SET used = used - 1 WHERE account_id = OLD.account_id AND resource = TG_TABLE_NAME;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER count_filesystems AFTER INSERT OR DELETE ON filesystems
    FOR EACH ROW EXECUTE FUNCTION count_account_rows();
CREATE TRIGGER count_firewall_rulesets AFTER INSERT OR DELETE ON firewall_rulesets
    FOR EACH ROW EXECUTE FUNCTION count_account_rows();
CREATE TRIGGER count_fabric_partitions AFTER INSERT OR DELETE ON fabric_partitions
    FOR EACH ROW EXECUTE FUNCTION count_account_rows();
CREATE TRIGGER count_webhook_endpoints AFTER INSERT OR DELETE ON webhook_endpoints
    FOR EACH ROW EXECUTE FUNCTION count_account_rows();

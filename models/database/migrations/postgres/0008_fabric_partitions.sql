-- 0008_fabric_partitions: partitions of the compute fabric, one table, and
-- the account's quota of them (existing accounts get the default, 10; the
-- column keeps no default, since an account is always created with its
-- quota). Released: never edit; add a step.

ALTER TABLE accounts ADD COLUMN fabric_partition_quota bigint NOT NULL DEFAULT 10;
ALTER TABLE accounts ALTER COLUMN fabric_partition_quota DROP DEFAULT;

CREATE TABLE fabric_partitions (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    workspace_id varchar(32) NOT NULL,
    name varchar(32) NOT NULL,
    region_name varchar(32) NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT fk_fabric_partitions_account FOREIGN KEY (account_id) REFERENCES accounts (id)
);
CREATE UNIQUE INDEX idx_fabric_partitions_account_region_name ON fabric_partitions (account_id, region_name, name);

-- 0036_instances_in_use: the instance-types list and every launch count
-- the instances holding capacity (booting, active, unhealthy) by type and
-- region. Led by the status alone, the count looked up each such
-- instance's row for its type and region. With the type and region in the
-- index the count reads the index only, and this index serves everything
-- the status index did.

DROP INDEX idx_instances_status;
CREATE INDEX idx_instances_in_use ON instances (status, instance_type_name, region_name);

-- 0030_instance_billing: what an instance costs and when it stopped
-- costing, for usage and budgets (models.Usage). An instance keeps the
-- price of its type at launch, whatever the catalogue says later; it
-- accrues from created_at until terminated_at (the end of its
-- terminating phase; NULL while it has not been terminated). Existing
-- instances get the catalogue's price of today and, when terminated,
-- the end recorded in status_until or, once resolved, their last update.

ALTER TABLE instances ADD COLUMN price_cents_per_hour bigint NOT NULL DEFAULT 0;
ALTER TABLE instances ADD COLUMN terminated_at timestamptz;
UPDATE instances SET price_cents_per_hour = CASE instance_type_name
  WHEN 'gpu_1x_a10' THEN 75 WHEN 'gpu_1x_a6000' THEN 80 WHEN 'gpu_1x_a100_sxm4' THEN 129
  WHEN 'gpu_8x_a100_80gb_sxm4' THEN 1432 WHEN 'gpu_1x_h100_pcie' THEN 249 WHEN 'gpu_8x_h100_sxm5' THEN 2392
  WHEN 'gpu_1x_gh200' THEN 149 WHEN 'gpu_8x_v100' THEN 440 ELSE 0 END;
UPDATE instances SET terminated_at = COALESCE(status_until, updated_at)
  WHERE status IN ('terminating', 'terminated');
CREATE INDEX idx_instances_usage ON instances (account_id, created_at);

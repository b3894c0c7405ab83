-- Instances remember the catalogue image they booted. Instances launched
-- before keep NULL: which image they had was never recorded.
ALTER TABLE `instances` ADD COLUMN `image_id` text;

-- 0010_account_usage: how many rows of each quota-bound table an account
-- owns, kept by triggers. Quota checks counted the rows under the account
-- lock, work that grew with every row and ran inside the one writer all
-- SQLite writes wait for. The triggers keep the count whoever writes the
-- rows: the server, the CLI commands, a copy. Released: never edit; add a
-- step.

CREATE TABLE `account_usage` (
  `account_id` text,
  `resource` text,
  `used` integer NOT NULL,
  PRIMARY KEY (`account_id`,`resource`),
  CONSTRAINT `fk_account_usage_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`)
);

INSERT INTO `account_usage` (`account_id`, `resource`, `used`)
  SELECT `account_id`, 'filesystems', count(*) FROM `filesystems` GROUP BY `account_id`
  UNION ALL SELECT `account_id`, 'firewall_rulesets', count(*) FROM `firewall_rulesets` GROUP BY `account_id`
  UNION ALL SELECT `account_id`, 'fabric_partitions', count(*) FROM `fabric_partitions` GROUP BY `account_id`
  UNION ALL SELECT `account_id`, 'webhook_endpoints', count(*) FROM `webhook_endpoints` GROUP BY `account_id`;

CREATE TRIGGER `count_filesystems_insert` AFTER INSERT ON `filesystems` BEGIN
  INSERT INTO `account_usage` (`account_id`, `resource`, `used`) VALUES (NEW.`account_id`, 'filesystems', 1)
    ON CONFLICT (`account_id`, `resource`) DO UPDATE SET `used` = `used` + 1;
END;
CREATE TRIGGER `count_filesystems_delete` AFTER DELETE ON `filesystems` BEGIN
  UPDATE `account_usage` SET `used` = `used` - 1 WHERE `account_id` = OLD.`account_id` AND `resource` = 'filesystems';
END;

CREATE TRIGGER `count_firewall_rulesets_insert` AFTER INSERT ON `firewall_rulesets` BEGIN
  INSERT INTO `account_usage` (`account_id`, `resource`, `used`) VALUES (NEW.`account_id`, 'firewall_rulesets', 1)
    ON CONFLICT (`account_id`, `resource`) DO UPDATE SET `used` = `used` + 1;
END;
CREATE TRIGGER `count_firewall_rulesets_delete` AFTER DELETE ON `firewall_rulesets` BEGIN
  UPDATE `account_usage` SET `used` = `used` - 1 WHERE `account_id` = OLD.`account_id` AND `resource` = 'firewall_rulesets';
END;

CREATE TRIGGER `count_fabric_partitions_insert` AFTER INSERT ON `fabric_partitions` BEGIN
  INSERT INTO `account_usage` (`account_id`, `resource`, `used`) VALUES (NEW.`account_id`, 'fabric_partitions', 1)
    ON CONFLICT (`account_id`, `resource`) DO UPDATE SET `used` = `used` + 1;
END;
CREATE TRIGGER `count_fabric_partitions_delete` AFTER DELETE ON `fabric_partitions` BEGIN
  UPDATE `account_usage` SET `used` = `used` - 1 WHERE `account_id` = OLD.`account_id` AND `resource` = 'fabric_partitions';
END;

CREATE TRIGGER `count_webhook_endpoints_insert` AFTER INSERT ON `webhook_endpoints` BEGIN
  INSERT INTO `account_usage` (`account_id`, `resource`, `used`) VALUES (NEW.`account_id`, 'webhook_endpoints', 1)
    ON CONFLICT (`account_id`, `resource`) DO UPDATE SET `used` = `used` + 1;
END;
CREATE TRIGGER `count_webhook_endpoints_delete` AFTER DELETE ON `webhook_endpoints` BEGIN
  UPDATE `account_usage` SET `used` = `used` - 1 WHERE `account_id` = OLD.`account_id` AND `resource` = 'webhook_endpoints';
END;

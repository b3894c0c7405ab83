-- 0032_budgets (issue 23): an account's monthly budget in cents, and
-- whether it stops new launches once the month's actual spend reaches it
-- (models.Budget); and the thresholds reached in each month
-- (models.BudgetAlert), one row per account, month, kind and percent,
-- which the unique index makes happen once whatever the number of
-- replicas evaluating at the same moment.
CREATE TABLE `budgets` (`account_id` text,`amount_cents` integer NOT NULL,`stop_launches` numeric NOT NULL,`updated_at` datetime NOT NULL,PRIMARY KEY (`account_id`),
  CONSTRAINT `fk_budgets_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`));
CREATE TABLE `budget_alerts` (`id` text,`account_id` text NOT NULL,`month` text NOT NULL,`kind` text NOT NULL,`percent` integer NOT NULL,`budget_cents` integer NOT NULL,`actual_cents` integer NOT NULL,`forecast_cents` integer NOT NULL,`created_at` datetime NOT NULL,PRIMARY KEY (`id`),
  CONSTRAINT `fk_budget_alerts_account` FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`));
CREATE UNIQUE INDEX `idx_budget_alerts_once` ON `budget_alerts`(`account_id`,`month`,`kind`,`percent`);

-- 0032_budgets (issue 23): an account's monthly budget in cents, and
-- whether it stops new launches once the month's actual spend reaches it
-- (models.Budget); and the thresholds reached in each month
-- (models.BudgetAlert), one row per account, month, kind and percent,
-- which the unique index makes happen once whatever the number of
-- replicas evaluating at the same moment.
CREATE TABLE budgets (
    account_id varchar(32) NOT NULL,
    amount_cents bigint NOT NULL,
    stop_launches boolean NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (account_id),
    CONSTRAINT fk_budgets_account FOREIGN KEY (account_id) REFERENCES accounts (id)
);
CREATE TABLE budget_alerts (
    id varchar(32) NOT NULL,
    account_id varchar(32) NOT NULL,
    month varchar(7) NOT NULL,
    kind varchar(16) NOT NULL,
    percent bigint NOT NULL,
    budget_cents bigint NOT NULL,
    actual_cents bigint NOT NULL,
    forecast_cents bigint NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT fk_budget_alerts_account FOREIGN KEY (account_id) REFERENCES accounts (id)
);
CREATE UNIQUE INDEX idx_budget_alerts_once ON budget_alerts (account_id, month, kind, percent);

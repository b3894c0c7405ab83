package models

import (
	"context"
	"slices"
	"strconv"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Kinds of budget threshold: the month's spend so far, or its forecast to
// the month's end at the current rate (MonthSpend).
const (
	BudgetActual   = "actual"
	BudgetForecast = "forecast"
)

// BudgetThreshold is a share of the budget that, once reached, is told to
// the account's owners, once per month.
type BudgetThreshold struct {
	Kind    string // BudgetActual or BudgetForecast
	Percent int
}

// BudgetThresholds are every threshold, in the order they are reached.
// Several reached at once (a budget lowered, a large launch) are each
// sent: every one is its own alert, mail and event, so a subscriber
// counting on the 80% event gets it even when 100% came in the same
// minute.
var BudgetThresholds = []BudgetThreshold{
	{BudgetActual, 50}, {BudgetActual, 80}, {BudgetForecast, 100}, {BudgetActual, 100},
}

// reached reports whether spend is at or over t's share of budget, in
// whole cents (no rounding: 50% of 1001 cents is reached at 501).
func (t BudgetThreshold) reached(budget int64, spend *MonthSpend) bool {
	cents := spend.ActualCents
	if t.Kind == BudgetForecast {
		cents = spend.ForecastCents
	}
	return budget > 0 && cents*100 >= budget*int64(t.Percent)
}

// crossedThresholds are the thresholds spend has reached, in
// BudgetThresholds' order.
func crossedThresholds(budget int64, spend *MonthSpend) []BudgetThreshold {
	var out []BudgetThreshold
	for _, t := range BudgetThresholds {
		if t.reached(budget, spend) {
			out = append(out, t)
		}
	}
	return out
}

// BudgetAlert records that a threshold was reached in a month. The unique
// key (account, month, kind, percent) makes it happen once: any number of
// replicas evaluating at once insert one row, and only the evaluator that
// inserted it sends the mail and the event, in the same transaction.
type BudgetAlert struct {
	ID            string    `gorm:"primaryKey;size:32"`
	AccountID     string    `gorm:"size:32;not null;uniqueIndex:idx_budget_alerts_once,priority:1"`
	Month         string    `gorm:"size:7;not null;uniqueIndex:idx_budget_alerts_once,priority:2"` // 2026-11
	Kind          string    `gorm:"size:16;not null;uniqueIndex:idx_budget_alerts_once,priority:3"`
	Percent       int       `gorm:"not null;uniqueIndex:idx_budget_alerts_once,priority:4"`
	BudgetCents   int64     `gorm:"not null"`
	ActualCents   int64     `gorm:"not null"`
	ForecastCents int64     `gorm:"not null"`
	CreatedAt     time.Time `gorm:"not null;autoCreateTime:false"`
}

// BudgetsActor is the budget evaluator, as audit events name it.
var BudgetsActor = Actor{Role: roleSystem, Service: "budgets"}

// monthKey names a month as alerts and events do: 2026-11.
func monthKey(month time.Time) string { return month.UTC().Format("2006-01") }

// BudgetThresholdEventData is the data of a billing.budget_threshold
// event. Amounts are whole cents.
type BudgetThresholdEventData struct {
	Object        string `json:"object"`  // always "budget_threshold"
	Account       string `json:"account"` // the account's id
	Month         string `json:"month"`   // YYYY-MM, UTC
	Threshold     int    `json:"threshold"`
	Kind          string `json:"kind"` // actual or forecast
	BudgetCents   int64  `json:"budget_cents"`
	ActualCents   int64  `json:"actual_cents"`
	ForecastCents int64  `json:"forecast_cents"`
}

func (a BudgetAlert) eventData() BudgetThresholdEventData {
	return BudgetThresholdEventData{Object: "budget_threshold", Account: a.AccountID, Month: a.Month,
		Threshold: a.Percent, Kind: a.Kind, BudgetCents: a.BudgetCents, ActualCents: a.ActualCents,
		ForecastCents: a.ForecastCents}
}

// EvaluateBudget sends the account's thresholds reached this month and
// not yet sent, and returns how many it sent. Each one is, in one
// transaction: its BudgetAlert row, an audit event (budget,
// threshold_reached), a mail to each owner and a billing.budget_threshold
// event. It is the server's job (after a launch, a budget change, and on
// SweepBudgets' schedule), not a user's operation.
func (s *Store) EvaluateBudget(ctx context.Context, accountID string) (int, error) {
	now := s.Now()
	b, err := budgetIn(s.read(ctx), accountID)
	if err != nil || b.AmountCents == 0 {
		return 0, translate(err)
	}
	spend, err := s.monthSpend(ctx, accountID, now)
	if err != nil {
		return 0, translate(err)
	}
	if pending, err := s.unsentThresholds(ctx, accountID, b.AmountCents, spend); err != nil || !pending {
		return 0, translate(err)
	}
	sent := 0
	err = s.write(ctx, func(tx *gorm.DB) error {
		sent = 0
		// The budget as it is now: an owner may have changed it since.
		b, err := budgetIn(tx, accountID)
		if err != nil {
			return err
		}
		for _, t := range crossedThresholds(b.AmountCents, spend) {
			a := BudgetAlert{ID: NewID(), AccountID: accountID, Month: monthKey(spend.Month), Kind: t.Kind,
				Percent: t.Percent, BudgetCents: b.AmountCents, ActualCents: spend.ActualCents,
				ForecastCents: spend.ForecastCents, CreatedAt: now}
			ok, err := s.sendBudgetAlert(tx, a)
			if err != nil {
				return err
			}
			if ok {
				sent++
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if sent > 0 {
		s.wake()
		s.wakeMail()
	}
	return sent, nil
}

// unsentThresholds reports whether spend reached a threshold its month
// has no alert for yet: most sweeps find none, and need no write.
func (s *Store) unsentThresholds(ctx context.Context, accountID string, budget int64, spend *MonthSpend) (bool, error) {
	crossed := crossedThresholds(budget, spend)
	if len(crossed) == 0 {
		return false, nil
	}
	var sent []BudgetAlert
	if err := s.read(ctx).Select("kind", "percent").Where("account_id = ? AND month = ?", accountID, monthKey(spend.Month)).
		Find(&sent).Error; err != nil {
		return false, err
	}
	for _, t := range crossed {
		if !slices.ContainsFunc(sent, func(a BudgetAlert) bool { return a.Kind == t.Kind && a.Percent == t.Percent }) {
			return true, nil
		}
	}
	return false, nil
}

// sendBudgetAlert inserts a unless its month already has it, and then
// records, mails and queues it; ok is false when it existed. On
// PostgreSQL a concurrent insert of the same key waits for the other
// transaction and then does nothing; SQLite has one writer.
func (s *Store) sendBudgetAlert(tx *gorm.DB, a BudgetAlert) (ok bool, err error) {
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&a)
	if res.Error != nil || res.RowsAffected == 0 {
		return false, res.Error
	}
	data := a.eventData()
	details := map[string]any{"month": a.Month, "threshold": a.Percent, "kind": a.Kind,
		"budget_cents": a.BudgetCents, "actual_cents": a.ActualCents, "forecast_cents": a.ForecastCents}
	if err := s.audit(tx, BudgetsActor, a.AccountID, "budget", "threshold_reached",
		[]string{lrn("account", a.AccountID)}, details); err != nil {
		return false, err
	}
	to, err := accountRecipients(tx, a.AccountID, MailBudgetThreshold)
	if err != nil {
		return false, err
	}
	pct := strconv.Itoa(a.Percent)
	if _, err := s.notify(tx, to, notice{kind: MailBudgetThreshold, subjectID: a.AccountID,
		period: a.Month + "/" + a.Kind + "/" + pct,
		data: map[string]string{"account_id": a.AccountID, "month": a.Month, "kind": a.Kind, "threshold": pct,
			"budget": FormatDollars(a.BudgetCents), "actual": FormatDollars(a.ActualCents),
			"forecast": FormatDollars(a.ForecastCents)}}); err != nil {
		return false, err
	}
	_, err = s.enqueueEvent(tx, a.AccountID, EventBillingBudgetThreshold, nil, data, "")
	return err == nil, err
}

// SweepBudgets evaluates every account with a budget whose month has
// thresholds left to send (spend grows with time, without any write),
// page by page, and returns how many thresholds it sent. Any number of
// replicas may sweep at once: each threshold is sent once.
func (s *Store) SweepBudgets(ctx context.Context) (int, error) {
	month := monthKey(MonthStart(s.Now()))
	sent := 0
	for after := ""; ; {
		var ids []string
		err := s.read(ctx).Model(&Budget{}).Where("amount_cents > 0 AND account_id > ?", after).
			Where("account_id NOT IN (SELECT account_id FROM budget_alerts WHERE month = ? "+
				"GROUP BY account_id HAVING COUNT(*) >= ?)", month, len(BudgetThresholds)).
			Order("account_id").Limit(s.sweepLimit).Pluck("account_id", &ids).Error
		if err != nil {
			return sent, translate(err)
		}
		for _, id := range ids {
			n, err := s.EvaluateBudget(ctx, id)
			if err != nil {
				return sent, err
			}
			sent += n
		}
		if len(ids) < s.sweepLimit {
			return sent, nil
		}
		after = ids[len(ids)-1]
	}
}

// exampleBudgetAlert is the catalogue's made-up alert, dated now: 80% of
// a $1,000.00 budget reached, with the forecast over it.
func exampleBudgetAlert(now time.Time) BudgetAlert {
	return BudgetAlert{AccountID: "0123456789abcdef0123456789abcdef", Month: monthKey(MonthStart(now)),
		Kind: BudgetActual, Percent: 80, BudgetCents: 100000, ActualCents: 80125, ForecastCents: 131040}
}

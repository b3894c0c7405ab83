package models

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Budget is an account's monthly budget: its owner is told when the
// month's spend reaches BudgetThresholds of it, and with StopLaunches new
// launches are refused once the month's actual spend reaches it. An
// account without a row, or with AmountCents 0, has no budget.
type Budget struct {
	AccountID    string    `gorm:"primaryKey;size:32"`
	AmountCents  int64     `gorm:"not null"`
	StopLaunches bool      `gorm:"not null"`
	UpdatedAt    time.Time `gorm:"not null;autoUpdateTime:false"`
}

// MaxBudgetCents is the largest budget: $10,000,000 a month.
const MaxBudgetCents = 1_000_000_000

// BudgetInput is what an owner sets. The dashboard sends Amount, dollars
// as typed ("1250", "1,250.5", "$1250.50"); the API sends AmountCents.
// AmountCents is used when it is set; one of them is required. An amount
// of zero (or an empty Amount) removes the budget.
type BudgetInput struct {
	Amount       *string `json:"-"`
	AmountCents  *int64  `json:"amount_cents"`
	StopLaunches bool    `json:"stop_launches"`
}

// cents validates the input and returns the budget in cents, or
// CodeInvalidParameters on "amount" (dashboard) or "amount_cents" (API).
func (in BudgetInput) cents() (int64, error) {
	if in.AmountCents != nil {
		c := *in.AmountCents
		if c < 0 || c > MaxBudgetCents {
			return 0, InvalidField("amount_cents", "must be between 0 and "+strconv.Itoa(MaxBudgetCents))
		}
		return c, nil
	}
	if in.Amount == nil {
		return 0, InvalidField("amount_cents", "is required (0 removes the budget)")
	}
	c, err := ParseDollars(*in.Amount)
	if err != nil {
		return 0, InvalidField("amount", err.Error())
	}
	if c > MaxBudgetCents {
		return 0, InvalidField("amount", "must be at most $10,000,000")
	}
	return c, nil
}

// ParseDollars reads an amount of dollars with at most two decimals
// ("12", "12.5", "$1,250.05") into cents, exactly: digits are counted,
// never converted through floating point. Empty is zero.
func ParseDollars(s string) (int64, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "$")
	if s == "" {
		return 0, nil
	}
	whole, frac, _ := strings.Cut(s, ".")
	whole = strings.ReplaceAll(whole, ",", "")
	if whole == "" && frac == "" {
		return 0, errors.New("must be an amount in dollars, such as 250 or 99.50")
	}
	if len(frac) > 2 {
		return 0, errors.New("must have at most two decimals (cents)")
	}
	if len(whole) > 10 {
		return 0, errors.New("must be at most $10,000,000")
	}
	var cents int64
	for _, r := range whole + (frac + "00")[:2] {
		if r < '0' || r > '9' {
			return 0, errors.New("must be an amount in dollars, such as 250 or 99.50")
		}
		cents = cents*10 + int64(r-'0')
	}
	return cents, nil
}

// FormatDollars writes cents as dollars with two decimals ("1250.05"),
// as ParseDollars reads them back.
func FormatDollars(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	c := strconv.FormatInt(cents%100, 10)
	if len(c) < 2 {
		c = "0" + c
	}
	return sign + strconv.FormatInt(cents/100, 10) + "." + c
}

// BudgetStatus is an account's budget as its users read it: the budget,
// the month's spend, and the thresholds it is over now.
type BudgetStatus struct {
	Budget Budget // AmountCents 0: no budget
	Spend  MonthSpend
	// Crossed are the thresholds the month's spend is over now, lowest
	// first (the banner names the highest).
	Crossed []BudgetThreshold
}

// Over is the highest threshold crossed, if any.
func (b *BudgetStatus) Over() (BudgetThreshold, bool) {
	if len(b.Crossed) == 0 {
		return BudgetThreshold{}, false
	}
	return b.Crossed[len(b.Crossed)-1], true
}

// BudgetStatus reads the actor's account's budget and this month's spend.
// Owners, members and viewers read it; anyone without an account gets
// CodeForbidden.
func (s *Store) BudgetStatus(ctx context.Context, actor Actor) (*BudgetStatus, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	b, err := budgetIn(s.read(ctx), accountID)
	if err != nil {
		return nil, translate(err)
	}
	spend, err := s.monthSpend(ctx, accountID, s.Now())
	if err != nil {
		return nil, translate(err)
	}
	return &BudgetStatus{Budget: *b, Spend: *spend, Crossed: crossedThresholds(b.AmountCents, spend)}, nil
}

// budgetIn is the account's budget, zero when it has none.
func budgetIn(db *gorm.DB, accountID string) (*Budget, error) {
	var rows []Budget
	if err := db.Where("account_id = ?", accountID).Limit(1).Find(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return &Budget{AccountID: accountID}, nil
	}
	return &rows[0], nil
}

// SetBudget sets the owner's account's monthly budget and whether it
// stops new launches. Owners only (CodeInsufficientScope for members and
// viewers); an invalid amount is CodeInvalidParameters naming the field.
// A change writes one audit event (budget, updated) with what changed;
// setting what is set writes none. A budget lowered below the month's
// spend sends its thresholds at once.
func (s *Store) SetBudget(ctx context.Context, actor Actor, in BudgetInput) (*Budget, error) {
	accountID, err := actor.manages()
	if err != nil {
		return nil, err
	}
	cents, err := in.cents()
	if err != nil {
		return nil, err
	}
	var out Budget
	err = s.write(ctx, func(tx *gorm.DB) error {
		old, err := budgetIn(tx, accountID)
		if err != nil {
			return err
		}
		out = Budget{AccountID: accountID, AmountCents: cents, StopLaunches: in.StopLaunches, UpdatedAt: s.Now()}
		if old.AmountCents == cents && old.StopLaunches == in.StopLaunches {
			out.UpdatedAt = old.UpdatedAt
			return nil
		}
		if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "account_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"amount_cents", "stop_launches", "updated_at"})}).
			Create(&out).Error; err != nil {
			return err
		}
		changes := map[string]any{}
		if old.AmountCents != cents {
			changes["amount_cents"] = map[string]int64{"from": old.AmountCents, "to": cents}
		}
		if old.StopLaunches != in.StopLaunches {
			changes["stop_launches"] = map[string]bool{"from": old.StopLaunches, "to": in.StopLaunches}
		}
		return s.audit(tx, actor, accountID, "budget", "updated", []string{lrn("account", accountID)}, changes)
	})
	if err != nil {
		return nil, err
	}
	_, _ = s.EvaluateBudget(ctx, accountID) // the sweep retries what fails here
	return &out, nil
}

// budgetAllowsLaunch refuses a launch, before its transaction, when the
// account's budget stops launches and the month's actual spend has
// reached it: CodeBudgetExceeded. Running instances are never stopped.
func budgetAllowsLaunch(db *gorm.DB, accountID string, now time.Time) error {
	b, err := budgetIn(db, accountID)
	if err != nil || !b.StopLaunches || b.AmountCents == 0 {
		return err
	}
	spend, err := monthSpendIn(db, accountID, now)
	if err != nil {
		return err
	}
	if spend.ActualCents < b.AmountCents {
		return nil
	}
	return &Error{Code: CodeBudgetExceeded,
		Message: "The account's spend this month ($" + FormatDollars(spend.ActualCents) +
			") has reached its monthly budget ($" + FormatDollars(b.AmountCents) + "), which stops new launches",
		Suggestion: "An owner can raise the budget or turn off \"stop new launches at 100%\" on the dashboard's Budget page " +
			"(or PUT /api/v1/budget). Running instances keep running."}
}

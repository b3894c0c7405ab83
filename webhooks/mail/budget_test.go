package mail_test

import (
	"context"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	mailer "cloudplane/webhooks/mail"
	"cloudplane/webhooks/mail/mailtest"
)

// A budget threshold emails each owner of the account once, over SMTP,
// saying how much was spent of which budget and linking to the usage
// page (budget_test.go in models counts that members get none).
func TestBudgetThresholdMailReachesOwnersOnly(t *testing.T) {
	clock := modelstest.NewClock()
	clock.Set(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	store := modelstest.Open(t, models.WithClock(clock.Now))
	srv := mailtest.Start(t, mailtest.Options{})
	run(t, mailer.Config{Store: store, Sender: sender(t, "smtp://"+srv.Addr, srv)})
	ctx := context.Background()
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	modelstest.Member(t, store, owner.Actor(), "mia@example.com", models.RoleMember)
	// The instance ends within the month, so only the actual spend counts.
	end := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	modelstest.InsertInstance(t, store, models.Instance{AccountID: *owner.AccountID, Status: models.InstanceActive,
		PriceCentsPerHour: 75, TerminatedAt: &end})
	clock.Set(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) // 675 cents of a $10 budget: 50%
	if _, err := store.SetBudget(ctx, owner.Actor(), models.BudgetInput{AmountCents: ptrTo(int64(1000))}); err != nil {
		t.Fatal(err)
	}
	// Two messages: the member was told they joined, and the owner of the threshold.
	msgs := notified(t, srv, 2, "cloudplane: your account reached a budget threshold")
	checkNotice(t, msgs, "ada@example.com", "/usage", "has reached 50% of its monthly budget of $10.00: $6.75 so far.",
		baseURL+"/budget", "My account&#39;s spend this month reached a budget threshold")
}

func ptrTo[T any](v T) *T { return &v }

package models_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

const pw = "correct horse battery"

// resolveAll claims every due message and resolves it as the worker
// would, and returns the reset tokens issued, by recipient.
func resolveAll(t *testing.T, store *models.Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	jobs, err := store.ClaimMail(ctx, "test", 1000, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	for _, j := range jobs {
		j, ok, err := store.ResolveMail(ctx, "test", j)
		if err != nil {
			t.Fatal(err)
		}
		if ok && j.Kind == models.MailPasswordReset {
			tokens[j.Recipient] = j.Data["token"]
		}
	}
	if err := store.ReleaseMail(ctx, "test", idsOf(jobs)); err != nil {
		t.Fatal(err)
	}
	return tokens
}

func idsOf(jobs []models.MailJob) []string {
	var ids []string
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	return ids
}

// resetTokenFor asks for a reset of email and returns the link's token.
func resetTokenFor(t *testing.T, store *models.Store, email string) string {
	t.Helper()
	if err := store.RequestPasswordReset(context.Background(), email, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	tok := resolveAll(t, store)[email]
	if tok == "" {
		t.Fatalf("no reset link for %s", email)
	}
	return tok
}

// mailData is the data of the newest message of kind to recipient.
func mailData(t *testing.T, store *models.Store, kind, to string) string {
	t.Helper()
	var data string
	if err := store.DB().Raw("SELECT data FROM mail_messages WHERE kind = ? AND recipient = ? ORDER BY created_at DESC, id DESC LIMIT 1",
		kind, to).Scan(&data).Error; err != nil {
		t.Fatal(err)
	}
	return data
}

func tokenIn(t *testing.T, data, key string) string {
	t.Helper()
	k := `"` + key + `":"`
	i := strings.Index(data, k)
	if i < 0 {
		t.Fatalf("no %s in %s", key, data)
	}
	return data[i+len(k) : i+len(k)+64]
}

// Every way of changing a password ends a pending email change: a thief
// who asked for one with the stolen password cannot confirm it after the
// victim changed it.
func TestPasswordChangeEndsPendingEmailChange(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{"reset link", "operator", "change"} {
		t.Run(how, func(t *testing.T) {
			store := modelstest.Open(t)
			u, _ := modelstest.Owner(t, store, "ada@example.com")
			tok := confirmationToken(t, store, u, "evil@attacker.example")
			switch how {
			case "reset link":
				rt := resetTokenFor(t, store, "ada@example.com")
				if _, _, err := store.CompletePasswordReset(ctx, models.PasswordResetInput{Token: rt,
					Password: "brand new passphrase", PasswordConfirm: "brand new passphrase"}); err != nil {
					t.Fatal(err)
				}
			case "operator":
				if err := store.SetPassword(ctx, models.OperatorActor, "ada@example.com", "another new passphrase"); err != nil {
					t.Fatal(err)
				}
			case "change":
				if err := store.ChangePassword(ctx, u.Actor(), models.ChangePasswordInput{CurrentPassword: pw,
					NewPassword: "brand new passphrase", NewPasswordConfirm: "brand new passphrase"}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := store.ConfirmEmailChange(ctx, tok); models.ErrorCode(err) != models.CodeNotFound {
				t.Fatalf("confirmed after a password change: %v", err)
			}
			if got, _ := store.User(ctx, u.ID); got.Email != "ada@example.com" {
				t.Fatalf("email now %q", got.Email)
			}
		})
	}
}

// The notice to the current address carries a one-time cancel link that
// ends the pending change.
func TestNoticeCancelLinkEndsTheChange(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	tok := confirmationToken(t, store, u, "evil@attacker.example")
	cancel := tokenIn(t, mailData(t, store, models.MailEmailChangeNotice, "ada@example.com"), "cancel_token")
	if err := store.CheckEmailCancelToken(ctx, cancel); err != nil {
		t.Fatal(err)
	}
	if err := store.CancelEmailChange(ctx, cancel); err != nil {
		t.Fatal(err)
	}
	if err := store.CancelEmailChange(ctx, cancel); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("the cancel link worked twice: %v", err)
	}
	if _, err := store.ConfirmEmailChange(ctx, tok); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("confirmed after cancel: %v", err)
	}
}

// A reset link mailed to the old address stops working once the email
// changes, and a reset requested for the old address is dropped.
func TestEmailChangeEndsResetLinks(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	rt := resetTokenFor(t, store, "ada@example.com")
	if err := store.RequestPasswordReset(ctx, "ada@example.com", "192.0.2.1"); err != nil { // still queued
		t.Fatal(err)
	}
	tok := confirmationToken(t, store, u, "ada@new.example")
	if _, err := store.ConfirmEmailChange(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CheckPasswordResetToken(ctx, rt); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("the old address's link still opens: %v", err)
	}
	if toks := resolveAll(t, store); toks["ada@example.com"] != "" {
		t.Fatal("a queued reset to the old address was resolved into a link")
	}
}

// Concurrent requests leave exactly one live link (PostgreSQL locks the
// user row; SQLite's writer serialises).
func TestConcurrentRequestsLeaveOneLink(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := store.RequestEmailChange(ctx, u.Actor(),
				models.EmailChangeInput{NewEmail: fmt.Sprintf("ada%d@new.example", i), CurrentPassword: pw})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	count := func(prefix string) int64 {
		var n int64
		if err := store.DB().Raw("SELECT count(*) FROM settings WHERE name LIKE ?", prefix+"%").Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("email_change:"); n != 1 {
		t.Errorf("%d pending email changes", n)
	}
	// Reset links: many resolutions at once (replicas) leave one.
	for range 8 {
		if err := store.RequestPasswordReset(ctx, "ada@example.com", "192.0.2.1"); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := store.ClaimMail(ctx, "test", 100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.Kind != models.MailPasswordReset {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := store.ResolveMail(ctx, "test", j); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := count("password_reset:"); n != 1 {
		t.Errorf("%d live reset links", n)
	}
}

// Email changes are capped per user and per new address per day, so a
// session cannot mail third parties at will.
func TestEmailChangesThrottled(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	req := func(to string) error {
		return store.RequestEmailChange(ctx, u.Actor(), models.EmailChangeInput{NewEmail: to, CurrentPassword: pw})
	}
	for range models.EmailChangesPerRecipientPerDay {
		if err := req("victim@example.org"); err != nil {
			t.Fatal(err)
		}
	}
	if err := req("victim@example.org"); models.ErrorCode(err) != models.CodeRateLimited {
		t.Fatalf("per recipient: %v", err)
	}
	for i := models.EmailChangesPerRecipientPerDay; i < models.EmailChangesPerUserPerDay; i++ {
		if err := req(fmt.Sprintf("other%d@example.org", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := req("fresh@example.org"); models.ErrorCode(err) != models.CodeRateLimited {
		t.Fatalf("per user: %v", err)
	}
	clock.Advance(25 * time.Hour)
	if err := req("fresh@example.org"); err != nil {
		t.Fatalf("the next day: %v", err)
	}
}

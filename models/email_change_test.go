package models_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// confirmationToken asks for an email change and returns the token of
// the link queued for the new address.
func confirmationToken(t *testing.T, store *models.Store, u *models.User, newEmail string) string {
	t.Helper()
	err := store.RequestEmailChange(context.Background(), u.Actor(),
		models.EmailChangeInput{NewEmail: newEmail, CurrentPassword: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	var data string
	if err := store.DB().Raw("SELECT data FROM mail_messages WHERE kind = ? AND recipient = ?",
		models.MailEmailChangeConfirm, newEmail).Scan(&data).Error; err != nil {
		t.Fatal(err)
	}
	const key = `"token":"`
	i := strings.Index(data, key)
	if i < 0 {
		t.Fatalf("no token in %s", data)
	}
	return data[i+len(key) : i+len(key)+64]
}

// Twenty concurrent confirmations of one link change the email once:
// one succeeds, the rest find the link used; one audit event.
func TestConcurrentEmailConfirmations(t *testing.T) {
	store := modelstest.Open(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	token := confirmationToken(t, store, u, "ada@new.example.com")
	var ok, gone atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := store.ConfirmEmailChange(context.Background(), token)
			switch {
			case err == nil:
				ok.Add(1)
			case models.ErrorCode(err) == models.CodeNotFound:
				gone.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || gone.Load() != 19 {
		t.Fatalf("%d succeeded, %d found the link used", ok.Load(), gone.Load())
	}
	got, err := store.User(context.Background(), u.ID)
	if err != nil || got.Email != "ada@new.example.com" {
		t.Fatalf("%v %v", got, err)
	}
	var n int64
	store.DB().Raw("SELECT COUNT(*) FROM audit_events WHERE additional_details LIKE ?", "%old_email%").Scan(&n)
	if n != 1 {
		t.Errorf("%d audit events of the change", n)
	}
}

// A new request replaces the pending change: the earlier link no longer
// works. Asking for the current address ends a pending change.
func TestEmailChangeReplacesEarlierLink(t *testing.T) {
	store := modelstest.Open(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	first := confirmationToken(t, store, u, "one@example.com")
	second := confirmationToken(t, store, u, "two@example.com")
	if _, err := store.ConfirmEmailChange(context.Background(), first); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("the replaced link: %v", err)
	}
	if p, err := store.ConfirmEmailChange(context.Background(), second); err != nil || p.NewEmail != "two@example.com" {
		t.Fatalf("%v %v", p, err)
	}
	third := confirmationToken(t, store, u, "three@example.com")
	err := store.RequestEmailChange(context.Background(), u.Actor(),
		models.EmailChangeInput{NewEmail: "TWO@example.com", CurrentPassword: "correct horse battery"})
	if err != nil {
		t.Fatalf("back to the current address: %v", err)
	}
	if _, err := store.ConfirmEmailChange(context.Background(), third); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("the change survived a request for the current address: %v", err)
	}
}

// A reset request writes one outbox row, known email or not; the worker's
// resolution issues the link and writes the audit event, for a known
// email only.
func TestPasswordResetRequestAudited(t *testing.T) {
	store := modelstest.Open(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	before := modelstest.AuditCount(t, store, "", "user") // personal: the platform's log
	if err := store.RequestPasswordReset(context.Background(), "ADA@example.com ", "192.0.2.7"); err != nil {
		t.Fatal(err)
	}
	if err := store.RequestPasswordReset(context.Background(), "bob@example.com", "192.0.2.7"); err != nil {
		t.Fatal(err)
	}
	if after := modelstest.AuditCount(t, store, "", "user"); after != before {
		t.Errorf("the request itself audited: %d -> %d", before, after)
	}
	log, err := store.MailLog(context.Background(), models.OperatorActor, "", "")
	if err != nil || len(log) != 2 || log[0].Status != models.MailPending || log[1].Status != models.MailPending {
		t.Fatalf("%+v %v", log, err)
	}
	resolveAll(t, store)
	if after := modelstest.AuditCount(t, store, "", "user"); after != before+1 || modelstest.PersonalEvents(t, store, u.ID, 1)[0].ActorRole != nil {
		t.Errorf("audit events %d -> %d", before, after)
	}
	if _, err := store.MailLog(context.Background(), u.Actor(), "", ""); models.ErrorCode(err) != models.CodeForbidden {
		t.Errorf("an owner read the mail log: %v", err)
	}
}

// An address in a domain linked to single sign-on is the domain owners'
// to manage: a user's own change out of it, or into it, is refused, when
// asked and when a link asked for before the domain was linked is opened;
// a change within the domain is allowed.
func TestEmailChangeKeepsSSODomains(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	alice := f.owner(t, "alice@corp.example")
	aliceUser := modelstest.Must[*models.User](t)(f.store.UserByEmail(ctx, "alice@corp.example"))
	early := confirmationToken(t, f.store, aliceUser, "alice@other.example") // corp.example is not linked yet
	if err := connectSSO(t, f.store, alice, "corp", "alice-sub", "alice@corp.example"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.LinkSSODomain(ctx, alice, models.SSODomainInput{Domain: "corp.example", Provider: "corp"}); err != nil {
		t.Fatal(err)
	}
	_, err := f.store.ConfirmEmailChange(ctx, early)
	wantCode(t, err, models.CodeForbidden)
	if u, _ := f.store.UserByEmail(ctx, "alice@corp.example"); u == nil {
		t.Fatal("alice left corp.example by an early link")
	}

	ada, _ := modelstest.Owner(t, f.store, "ada@example.com")
	for who, move := range map[*models.User]string{aliceUser: "alice@other.example", ada: "ada@corp.example"} {
		err := f.store.RequestEmailChange(ctx, who.Actor(), models.EmailChangeInput{NewEmail: move, CurrentPassword: password})
		wantField(t, err, "new_email")
		if e, _ := models.AsError(err); models.ErrorCode(err) != models.CodeForbidden || !strings.Contains(e.Suggestion, "Ask an owner") {
			t.Fatalf("%s to %s: %v", who.Email, move, err)
		}
	}
	if err := f.store.RequestEmailChange(ctx, aliceUser.Actor(), models.EmailChangeInput{NewEmail: "alice.b@corp.example",
		CurrentPassword: password}); err != nil {
		t.Fatalf("a change within corp.example: %v", err)
	}
}

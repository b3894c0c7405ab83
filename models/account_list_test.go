package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func TestSupportListsAndChangesAccounts(t *testing.T) {
	f := newTicketFixture(t)
	for i := range 5 {
		modelstest.Owner(t, f.store, fmt.Sprintf("team%d_x@corp.example", i))
	}
	// owner@, other@ and five team%d_x@ owners; "_" is no wildcard.
	var got []string
	filter := models.AccountFilter{Email: "_X@", Limit: 2}
	for {
		page, err := f.store.Accounts(f.ctx, f.support, filter)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range page.Accounts {
			got = append(got, a.OwnerEmail)
		}
		if page.NextPageToken == nil {
			break
		}
		filter.PageToken = *page.NextPageToken
	}
	if want := "[team0_x@corp.example team1_x@corp.example team2_x@corp.example team3_x@corp.example team4_x@corp.example]"; fmt.Sprint(got) != want {
		t.Fatalf("search: %v, want %s", got, want)
	}
	if page, _ := f.store.Accounts(f.ctx, f.support, models.AccountFilter{Email: "%"}); len(page.Accounts) != 0 {
		t.Fatalf("%% matched %d accounts", len(page.Accounts))
	}
	if _, err := f.store.Accounts(f.ctx, f.owner, models.AccountFilter{}); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("owner listing accounts: %v", err)
	}
	if _, err := f.store.AccountForSupport(f.ctx, f.owner, f.other.AccountID); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("owner reading an account: %v", err)
	}
	a, err := f.store.AccountForSupport(f.ctx, f.support, f.owner.AccountID)
	if err != nil || a.OwnerEmail != "owner@example.com" || a.Status != models.AccountActive {
		t.Fatalf("account %+v %v", a, err)
	}

	quota, invalid := 9, false
	in := models.UpdateAccountInput{FilesystemQuota: &quota, BillingAddressValid: &invalid}
	if _, err := f.store.UpdateAccountByID(f.ctx, f.owner, f.owner.AccountID, in); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("owner changing their account: %v", err)
	}
	negative := -1
	_, err = f.store.UpdateAccountByID(f.ctx, f.support, f.owner.AccountID, models.UpdateAccountInput{RulesetQuota: &negative})
	expectCode(t, err, models.CodeInvalidParameters, "ruleset_quota")
	if _, err := f.store.UpdateAccountByID(f.ctx, f.support, models.NewID(), in); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("unknown account: %v", err)
	}
	changed, err := f.store.UpdateAccountByID(f.ctx, f.support, f.owner.AccountID, in)
	if err != nil || changed.FilesystemQuota != 9 || changed.BillingAddressValid {
		t.Fatalf("changed %+v %v", changed, err)
	}
	var ev models.AuditEvent
	f.store.DB().Where("account_id = ? AND resource_name = ?", f.owner.AccountID, "account").Take(&ev)
	if ev.ActorLRN == nil || *ev.ActorLRN != "lrn:cloud:user:"+f.support.UserID || len(ev.AdditionalDetails.Map()) != 2 {
		t.Fatalf("audit event %+v", ev)
	}
	// Nothing to change writes nothing.
	f.store.UpdateAccountByID(f.ctx, f.support, f.owner.AccountID, in)
	if n := f.count(&models.AuditEvent{}, "resource_name = ?", "account"); n != 1 {
		t.Fatalf("%d account audit events, want 1", n)
	}
}

// Support deactivating an account through one replica refuses its keys on
// another within the credentials check interval, as the CLI's change does.
func TestSupportDeactivationReachesOtherReplicas(t *testing.T) {
	ctx := context.Background()
	dsn := modelstest.DSN(t)
	clock := modelstest.NewClock()
	here := modelstest.OpenAt(t, dsn, models.WithClock(clock.Now))
	there := modelstest.OpenAt(t, dsn, models.WithClock(clock.Now))
	owner, secret := modelstest.Owner(t, here, "owner@example.com")
	agent, err := here.CreateUser(ctx, models.OperatorActor,
		models.CreateUserInput{Email: "help@example.com", Password: "support password", Role: models.RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := there.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	inactive := models.AccountInactive
	if _, err := here.UpdateAccountByID(ctx, agent.Actor(), *owner.AccountID, models.UpdateAccountInput{Status: &inactive}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(250 * time.Millisecond)
	if _, err := there.Authenticate(ctx, secret); models.ErrorCode(err) != models.CodeAccountInactive {
		t.Fatalf("key of the deactivated account on the other replica: %v", err)
	}
}

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
	in := models.UpdateAccountInput{FilesystemQuota: &quota, BillingAddressValid: &invalid, Reason: "Ticket 12"}
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
	if ev.ActorLRN == nil || *ev.ActorLRN != "lrn:cloud:user:"+f.support.UserID || len(ev.AdditionalDetails.Map()) != 4 {
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
	if _, err := here.UpdateAccountByID(ctx, agent.Actor(), *owner.AccountID, models.UpdateAccountInput{Status: &inactive, Reason: "Unpaid"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(250 * time.Millisecond)
	if _, err := there.Authenticate(ctx, secret); models.ErrorCode(err) != models.CodeAccountInactive {
		t.Fatalf("key of the deactivated account on the other replica: %v", err)
	}
}

// Support must say why they change an account, and the reason reaches the
// audit event with the values the change replaced; the operator's CLI may
// leave it out. Support also reads what the account uses of each quota.
func TestSupportAccountChangeNeedsAReason(t *testing.T) {
	f := newTicketFixture(t)
	quota, fabric := 50, 4
	in := models.UpdateAccountInput{FilesystemQuota: &quota, FabricPartitionQuota: &fabric, Reason: "  \t "}
	_, err := f.store.UpdateAccountByID(f.ctx, f.support, f.owner.AccountID, in)
	expectCode(t, err, models.CodeInvalidParameters, "reason")
	in.Reason = "bad\x00reason"
	_, err = f.store.UpdateAccountByID(f.ctx, f.support, f.owner.AccountID, in)
	expectCode(t, err, models.CodeInvalidParameters, "reason")
	if n := f.count(&models.AuditEvent{}, "resource_name = ?", "account"); n != 0 {
		t.Fatalf("a refused change wrote %d audit events", n)
	}
	before, _ := f.store.Account(f.ctx, f.owner.AccountID)

	in.Reason = " Raised for ticket #12 "
	if _, err := f.store.UpdateAccountByID(f.ctx, f.support, f.owner.AccountID, in); err != nil {
		t.Fatal(err)
	}
	var ev models.AuditEvent
	f.store.DB().Where("account_id = ? AND resource_name = ?", f.owner.AccountID, "account").Take(&ev)
	d := ev.AdditionalDetails.Map()
	prev, _ := d["previous"].(map[string]any)
	if d["reason"] != "Raised for ticket #12" || d["filesystem_quota"] != float64(50) || d["fabric_partition_quota"] != float64(4) ||
		prev["filesystem_quota"] != float64(before.FilesystemQuota) || prev["fabric_partition_quota"] != float64(before.FabricPartitionQuota) {
		t.Fatalf("audit details %v", d)
	}

	// The operator may leave the reason out.
	quota = 51
	if _, err := f.store.UpdateAccountByID(f.ctx, models.OperatorActor, f.owner.AccountID, models.UpdateAccountInput{FilesystemQuota: &quota}); err != nil {
		t.Fatalf("operator without a reason: %v", err)
	}

	if _, err := f.store.CreateFilesystem(f.ctx, f.owner, models.CreateFilesystemInput{Name: "data", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.AccountOverviewForSupport(f.ctx, f.owner, f.owner.AccountID); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("owner reading usage: %v", err)
	}
	if _, err := f.store.AccountOverviewForSupport(f.ctx, f.support, models.NewID()); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("unknown account: %v", err)
	}
	o, err := f.store.AccountOverviewForSupport(f.ctx, f.support, f.owner.AccountID)
	if err != nil || o.Filesystems != 1 || o.Account.FilesystemQuota != 51 || o.Account.FabricPartitionQuota != 4 {
		t.Fatalf("usage %+v %v", o, err)
	}
}

package models_test

import (
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Account mail goes to the account's members: webhook mail to its owners
// only, who alone manage webhooks; the rest to every member. Being added
// to an account and a role change tell the member.
func TestNotificationsReachMembers(t *testing.T) {
	f := newNotifyFixture(t)
	owner := f.owner.Actor()
	viewer, _ := modelstest.Member(t, f.store, owner, "vic@example.com", models.RoleViewer)

	added := mailsOf(t, f.store, models.MailMembershipChanged)
	if len(added) != 1 || added[0].Recipient != "vic@example.com" || added[0].Data["what"] != models.MembershipAdded {
		t.Fatalf("being added: %+v", added)
	}
	f.clock.Advance(time.Second) // mails of one instant are listed in the order of their random ids
	if _, err := f.store.SetMemberRole(f.ctx, owner, models.MemberInput{Member: viewer.UserID, Role: models.RoleMember}); err != nil {
		t.Fatal(err)
	}
	changed := mailsOf(t, f.store, models.MailMembershipChanged)
	if len(changed) != 2 || changed[1].Recipient != "vic@example.com" ||
		changed[1].Data["what"] != models.MembershipRoleChanged || changed[1].Data["role"] != models.RoleMember {
		t.Fatalf("a role change: %+v", changed)
	}

	quota := 30
	if _, err := f.store.UpdateAccountByID(f.ctx, f.support.Actor(), owner.AccountID, models.UpdateAccountInput{FilesystemQuota: &quota, Reason: "More room"}); err != nil {
		t.Fatal(err)
	}
	if got := recipients(mailsOf(t, f.store, models.MailAccountChanged)); len(got) != 2 || !got["ada@example.com"] || !got["vic@example.com"] {
		t.Fatalf("an account change told %v, want both members", got)
	}

	f.endpoint(f.owner, f.clock.Now().Add(-models.WebhookFailingLimit-time.Hour))
	if _, err := f.store.DisableFailingWebhookEndpoints(f.ctx); err != nil {
		t.Fatal(err)
	}
	if got := recipients(mailsOf(t, f.store, models.MailWebhookDisabled)); len(got) != 1 || !got["ada@example.com"] {
		t.Fatalf("a disabled endpoint told %v, want the owner only", got)
	}
}

func recipients(mails []models.MailMessage) map[string]bool {
	out := map[string]bool{}
	for _, m := range mails {
		out[m.Recipient] = true
	}
	return out
}

// A sweep goes past its first page: with pages of 2, seven expiring keys
// (one of them held by a member who turned the topic off) and three
// failing endpoints all get their mail in one sweep, and the next sweep
// queues nothing.
func TestSweepGoesPastItsFirstPage(t *testing.T) {
	f := newNotifyFixture(t)
	f.store.SetSweepLimit(2)
	owner := f.owner.Actor()
	quiet, _ := modelstest.Member(t, f.store, owner, "quiet@example.com", models.RoleMember)
	if err := f.store.SetNotificationPreferences(f.ctx, quiet, models.NotificationPreferencesInput{On: []string{models.TopicTickets}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.CreateAPIKey(f.ctx, quiet, models.CreateAPIKeyInput{Name: "quiet", Expires: "3d"}); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if _, _, err := f.store.CreateAPIKey(f.ctx, owner, models.CreateAPIKeyInput{Name: "k" + string(rune('a'+i)), Expires: "3d"}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		f.endpoint(f.owner, f.clock.Now().Add(-2*time.Hour))
	}
	if n := f.sweep(); n != 6+3 {
		t.Fatalf("one sweep queued %d mails, want 9", n)
	}
	if n := f.sweep(); n != 0 {
		t.Fatalf("the next sweep queued %d", n)
	}
}

// An incident raised to severity 1 after it was opened tells support
// staff, as one opened so does: once per ticket, however often it is
// lowered and raised again.
func TestTicketRaisedToSev1TellsSupport(t *testing.T) {
	f := newNotifyFixture(t)
	f.user("kim@support.example.com", models.RoleSupport)
	tk := f.ticket("sev_3")
	raise := func(sev string) {
		t.Helper()
		if _, err := f.store.UpdateTicket(f.ctx, f.owner.Actor(), tk.ID, models.UpdateTicketInput{Severity: &sev}); err != nil {
			t.Fatal(err)
		}
	}
	raise("sev_2")
	if m := mailsOf(t, f.store, models.MailTicketSev1); len(m) != 0 {
		t.Fatalf("sev_2 told support: %+v", m)
	}
	raise("sev_1")
	raise("sev_2")
	raise("sev_1")
	if m := mailsOf(t, f.store, models.MailTicketSev1); len(m) != 2 || m[0].Data["ticket_id"] != tk.ID {
		t.Fatalf("raised to sev_1: %d mails, want one to each of the 2 support staff: %+v", len(m), m)
	}
}

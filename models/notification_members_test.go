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
	if _, err := f.store.SetMemberRole(f.ctx, owner, models.MemberInput{Member: viewer.UserID, Role: models.RoleMember}); err != nil {
		t.Fatal(err)
	}
	changed := mailsOf(t, f.store, models.MailMembershipChanged)
	if len(changed) != 2 || changed[1].Recipient != "vic@example.com" ||
		changed[1].Data["what"] != models.MembershipRoleChanged || changed[1].Data["role"] != models.RoleMember {
		t.Fatalf("a role change: %+v", changed)
	}

	quota := 30
	if _, err := f.store.UpdateAccountByID(f.ctx, f.support.Actor(), owner.AccountID, models.UpdateAccountInput{FilesystemQuota: &quota}); err != nil {
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

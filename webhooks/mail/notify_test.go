package mail_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
	mailer "cloudplane/webhooks/mail"
	"cloudplane/webhooks/mail/mailtest"
)

// notified waits until srv holds n messages and returns those with the
// subject.
func notified(t *testing.T, srv *mailtest.Server, n int, subject string) []mailtest.Message {
	t.Helper()
	testserver.Eventually(t, 10*time.Second, func() bool { return len(srv.Messages()) >= n }, subject)
	var out []mailtest.Message
	for _, m := range srv.Messages() {
		if m.Header("Subject") == subject {
			out = append(out, m)
		}
	}
	return out
}

// checkNotice checks a notification arrived once, to `to`, with a link
// to path in both parts, why it came and where to stop it.
func checkNotice(t *testing.T, msgs []mailtest.Message, to, path string, says ...string) {
	t.Helper()
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if len(m.To) != 1 || m.To[0] != to {
		t.Errorf("sent to %v, want %s", m.To, to)
	}
	body := decodeQP(m.Data)
	link := regexp.MustCompile(regexp.QuoteMeta(baseURL+path) + `["\s<]`)
	if n := len(link.FindAllString(body, -1)); n < 2 {
		t.Errorf("link %s appears %d times, want it in both parts:\n%s", baseURL+path, n, body)
	}
	for _, want := range append([]string{"multipart/alternative", "You got this email because",
		"is on in your cloudplane notification settings", baseURL + "/account#notifications", baseURL + "/"}, says...) {
		if !strings.Contains(body, want) {
			t.Errorf("message lacks %q:\n%s", want, body)
		}
	}
}

// Every notification arrives over SMTP once, naming the product, with a
// link into the dashboard built from the base URL, why it was sent and
// where to turn it off: a support reply (when its window ends, naming
// the count), a solve, an account change, a severity 1 ticket, an
// assignment, a disabled endpoint, an endpoint failing for an hour and a
// key about to expire.
func TestEachNotificationArrives(t *testing.T) {
	clock := modelstest.NewClock()
	clock.Set(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	store := modelstest.Open(t, models.WithClock(clock.Now))
	srv := mailtest.Start(t, mailtest.Options{})
	run(t, mailer.Config{Store: store, Sender: sender(t, "smtp://"+srv.Addr, srv)})
	ctx := context.Background()
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	newUser := func(email string) *models.User {
		u, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{Email: email, Password: "correct horse battery", Role: models.RoleSupport})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	sam, kim := newUser("sam@support.example.com"), newUser("kim@support.example.com")
	sent := 0

	sev := "sev_1"
	tk, err := store.CreateTicket(ctx, owner.Actor(), models.CreateTicketInput{Subject: "GPU gone", Description: "It vanished",
		Type: models.TicketIncident, Severity: &sev})
	if err != nil {
		t.Fatal(err)
	}
	sent += 2
	for _, to := range []string{sam.Email, kim.Email} {
		var mine []mailtest.Message
		for _, m := range notified(t, srv, sent, "cloudplane: new severity 1 ticket") {
			if m.To[0] == to {
				mine = append(mine, m)
			}
		}
		checkNotice(t, mine, to, "/tickets/"+tk.ID, "GPU gone", "A new ticket of severity 1")
	}

	if _, err := store.AssignTicket(ctx, sam.Actor(), tk.ID, models.AssignTicketInput{Assignee: kim.ID}); err != nil {
		t.Fatal(err)
	}
	sent++
	checkNotice(t, notified(t, srv, sent, "cloudplane: a ticket was assigned to you"), kim.Email, "/tickets/"+tk.ID,
		"sam@support.example.com assigned you")

	for _, body := range []string{"Looking", "Found it", "Fixed"} {
		if _, err := store.UpdateTicket(ctx, kim.Actor(), tk.ID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: body}}); err != nil {
			t.Fatal(err)
		}
	}
	var replies []models.MailLogEntry
	for _, l := range mailLog(t, store) {
		if l.Kind == models.MailTicketReplied {
			replies = append(replies, l)
		}
	}
	if len(replies) != 1 || replies[0].Status != models.MailPending || !replies[0].NextAttemptAt.After(clock.Now()) {
		t.Fatalf("three replies: want one mail waiting for its window, got %+v", replies)
	}
	clock.Advance(models.TicketReplyWindow)
	sent++
	checkNotice(t, notified(t, srv, sent, "cloudplane: support replied to your ticket"), owner.Email, "/tickets/"+tk.ID,
		"Support wrote 3 replies")

	solved := models.TicketSolved
	if _, err := store.UpdateTicket(ctx, kim.Actor(), tk.ID, models.UpdateTicketInput{Status: &solved}); err != nil {
		t.Fatal(err)
	}
	sent++
	checkNotice(t, notified(t, srv, sent, "cloudplane: support solved your ticket"), owner.Email, "/tickets/"+tk.ID,
		"as solved")

	quota, invalid := 40, false
	if _, err := store.UpdateAccountByID(ctx, sam.Actor(), *owner.AccountID, models.UpdateAccountInput{FilesystemQuota: &quota, BillingAddressValid: &invalid,
		Reason: "Raised for ticket 42"}); err != nil {
		t.Fatal(err)
	}
	sent++
	checkNotice(t, notified(t, srv, sent, "cloudplane: support changed your account"), owner.Email, "/account",
		"Filesystem quota: 40", "Billing address valid: no", "Why: Raised for ticket 42")

	e, _, err := store.CreateWebhookEndpoint(ctx, owner.Actor(), models.SetWebhookInput{URL: "https://hooks.example.com/x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.DB().Model(&models.WebhookEndpoint{}).Where("id = ?", e.ID).Update("failing_since", clock.Now().Add(-2*time.Hour)).Error; err != nil {
		t.Fatal(err)
	}
	k, _, err := store.CreateAPIKey(ctx, owner.Actor(), models.CreateAPIKeyInput{Name: "deploy", Expires: "6d"})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := store.SweepNotifications(ctx); err != nil || n != 2 {
		t.Fatalf("sweep queued %d, %v", n, err)
	}
	sent += 2
	checkNotice(t, notified(t, srv, sent, "cloudplane: a webhook endpoint has been failing for an hour"), owner.Email,
		"/webhook/"+e.ID, "hooks.example.com")
	checkNotice(t, notified(t, srv, sent, "cloudplane: an API key of yours expires within 7 days"), owner.Email,
		"/api-keys", "deploy", k.Prefix)

	if err := store.DB().Model(&models.WebhookEndpoint{}).Where("id = ?", e.ID).Update("failing_since", clock.Now().Add(-models.WebhookFailingLimit)).Error; err != nil {
		t.Fatal(err)
	}
	if n, err := store.DisableFailingWebhookEndpoints(ctx); err != nil || n != 1 {
		t.Fatalf("disabled %d, %v", n, err)
	}
	sent++
	checkNotice(t, notified(t, srv, sent, "cloudplane: a webhook endpoint was disabled"), owner.Email, "/webhook/"+e.ID,
		"every delivery attempt failed for 5 days")

	// One outbox row per notification: none was queued twice.
	if l := mailLog(t, store); len(l) != sent {
		t.Errorf("%d messages queued, want %d", len(l), sent)
	}
}

// The membership notice, which the members operations queue, renders
// both changes with the role, why it came and how to stop it.
func TestMembershipNoticeRenders(t *testing.T) {
	for what, want := range map[string]string{models.MembershipAdded: "You were added to a cloudplane account as member",
		models.MembershipRoleChanged: "Your role in a cloudplane account is now member"} {
		out, err := mailer.Render(models.MailJob{Kind: models.MailMembershipChanged, Recipient: "ada@example.com",
			Subject: "s", Data: map[string]string{"account_id": "a1", "what": what, "role": "member"}}, baseURL)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{out.Text, out.HTML} {
			for _, s := range []string{want, baseURL + "/account#notifications", "I was added to an account, or my role changed"} {
				if !strings.Contains(part, s) {
					t.Errorf("%s: lacks %q:\n%s", what, s, part)
				}
			}
		}
	}
	// A notification whose data is gone (sent, then retried) fails for good.
	if _, err := mailer.Render(models.MailJob{Kind: models.MailTicketReplied, Data: map[string]string{}}, baseURL); err == nil {
		t.Error("a reply notice without its ticket rendered")
	}
}

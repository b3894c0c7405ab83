package models_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// notifyFixture is a store with a clock, an owner with an account and a
// support user.
type notifyFixture struct {
	t       *testing.T
	ctx     context.Context
	store   *models.Store
	clock   *modelstest.Clock
	owner   *models.User
	support *models.User
}

func newNotifyFixture(t *testing.T) *notifyFixture {
	t.Helper()
	clock := modelstest.NewClock()
	f := &notifyFixture{t: t, ctx: context.Background(), clock: clock,
		store: modelstest.Open(t, models.WithClock(clock.Now))}
	f.owner = f.user("ada@example.com", models.RoleOwner)
	f.support = f.user("sam@support.example.com", models.RoleSupport)
	return f
}

func (f *notifyFixture) user(email, role string) *models.User {
	f.t.Helper()
	u, err := f.store.CreateUser(f.ctx, models.OperatorActor, models.CreateUserInput{Email: email, Password: "correct horse battery", Role: role})
	if err != nil {
		f.t.Fatal(err)
	}
	return u
}

// mails are the queued messages of kind, oldest first.
func mailsOf(t *testing.T, store *models.Store, kind string) []models.MailMessage {
	t.Helper()
	var out []models.MailMessage
	if err := store.DB().Where("kind = ?", kind).Order("created_at, id").Find(&out).Error; err != nil {
		t.Fatal(err)
	}
	return out
}

func (f *notifyFixture) ticket(severity string) *models.Ticket {
	f.t.Helper()
	in := models.CreateTicketInput{Subject: "GPU gone", Description: "It vanished", Type: models.TicketIncident, Severity: &severity}
	tk, err := f.store.CreateTicket(f.ctx, f.owner.Actor(), in)
	if err != nil {
		f.t.Fatal(err)
	}
	return tk
}

func (f *notifyFixture) reply(actor models.Actor, ticketID, body string) {
	f.t.Helper()
	if _, err := f.store.UpdateTicket(f.ctx, actor, ticketID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: body}}); err != nil {
		f.t.Fatal(err)
	}
}

// Every topic is on for a user who never chose; owners are offered the
// account topics and support staff theirs; a choice turns the unticked
// off, writes one audit event, and choosing the same again writes none.
func TestNotificationPreferences(t *testing.T) {
	f := newNotifyFixture(t)
	names := func(a models.Actor) map[string]bool {
		settings, err := f.store.NotificationSettings(f.ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, s := range settings {
			out[s.Name] = s.On
		}
		return out
	}
	want := map[string]bool{models.TopicTickets: true, models.TopicWebhooks: true, models.TopicAPIKeys: true,
		models.TopicAccount: true, models.TopicMembership: true, models.TopicBudgets: true}
	if got := names(f.owner.Actor()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("owner's defaults %v, want %v", got, want)
	}
	if got := names(f.support.Actor()); fmt.Sprint(got) != fmt.Sprint(map[string]bool{models.TopicSev1Tickets: true, models.TopicAssignments: true}) {
		t.Errorf("support's defaults %v", got)
	}

	before := modelstest.AuditCount(t, f.store, *f.owner.AccountID, "user")
	set := func(a models.Actor, on ...string) error {
		return f.store.SetNotificationPreferences(f.ctx, a, models.NotificationPreferencesInput{On: on})
	}
	if err := set(f.owner.Actor(), models.TopicWebhooks, models.TopicAPIKeys); err != nil {
		t.Fatal(err)
	}
	got := names(f.owner.Actor())
	if !got[models.TopicWebhooks] || !got[models.TopicAPIKeys] || got[models.TopicTickets] || got[models.TopicAccount] || got[models.TopicMembership] {
		t.Errorf("after the choice: %v", got)
	}
	if n := modelstest.AuditCount(t, f.store, *f.owner.AccountID, "user"); n != before+1 {
		t.Errorf("%d audit events, want %d", n, before+1)
	}
	if err := set(f.owner.Actor(), models.TopicAPIKeys, models.TopicWebhooks); err != nil {
		t.Fatal(err)
	}
	if n := modelstest.AuditCount(t, f.store, *f.owner.AccountID, "user"); n != before+1 {
		t.Errorf("an unchanged choice was audited: %d events", n)
	}

	// Unknown names, and the other role's topics, change nothing.
	for _, bad := range [][]string{{"bogus"}, {models.TopicTickets, models.TopicSev1Tickets}, {""}} {
		err := set(f.owner.Actor(), bad...)
		if e, ok := models.AsError(err); !ok || e.Code != models.CodeInvalidParameters || e.Fields["notifications"] == "" {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if got := names(f.owner.Actor()); got[models.TopicTickets] {
		t.Errorf("a refused choice changed settings: %v", got)
	}
	if err := set(f.support.Actor(), models.TopicTickets); err == nil {
		t.Error("support staff chose an account topic")
	}
	if err := set(models.OperatorActor); err == nil {
		t.Error("the operator, who is no user, chose notifications")
	}
}

// Support's replies to a ticket are gathered: the first of a window
// queues one mail, due when the window ends; the next ones count in it;
// a reply after the window queues the next mail. The owner's own
// comments, and replies while the topic is off, tell no one.
func TestTicketRepliesAreBatched(t *testing.T) {
	f := newNotifyFixture(t)
	tk := f.ticket("sev_3")
	f.reply(f.owner.Actor(), tk.ID, "more detail")
	if m := mailsOf(t, f.store, models.MailTicketReplied); len(m) != 0 {
		t.Fatalf("the owner's own comment queued %d mails", len(m))
	}
	for i := range 12 {
		f.reply(f.support.Actor(), tk.ID, fmt.Sprintf("reply %d", i))
		f.clock.Advance(time.Second)
	}
	m := mailsOf(t, f.store, models.MailTicketReplied)
	if len(m) != 1 {
		t.Fatalf("%d mails for 12 replies, want 1", len(m))
	}
	if m[0].Recipient != f.owner.Email || m[0].Data["count"] != "12" || m[0].Data["ticket_id"] != tk.ID {
		t.Errorf("mail %+v", m[0])
	}
	if due := m[0].NextAttemptAt; due.Before(m[0].CreatedAt) || due.After(m[0].CreatedAt.Add(models.TicketReplyWindow)) {
		t.Errorf("due %v for a mail queued %v", due, m[0].CreatedAt)
	}
	f.clock.Advance(models.TicketReplyWindow)
	f.reply(f.support.Actor(), tk.ID, "after the window")
	if m := mailsOf(t, f.store, models.MailTicketReplied); len(m) != 2 || m[1].Data["count"] != "1" {
		t.Fatalf("after the window: %d mails %+v", len(m), m)
	}

	// Off means no mail, for replies and for the solve.
	if err := f.store.SetNotificationPreferences(f.ctx, f.owner.Actor(), models.NotificationPreferencesInput{}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(models.TicketReplyWindow)
	f.reply(f.support.Actor(), tk.ID, "nobody hears")
	solved := models.TicketSolved
	if _, err := f.store.UpdateTicket(f.ctx, f.support.Actor(), tk.ID, models.UpdateTicketInput{Status: &solved}); err != nil {
		t.Fatal(err)
	}
	if r, s := mailsOf(t, f.store, models.MailTicketReplied), mailsOf(t, f.store, models.MailTicketSolved); len(r) != 2 || len(s) != 0 {
		t.Errorf("with the topic off: %d replies mails, %d solved mails", len(r), len(s))
	}
}

// A solve by support tells the author once; a solve by the owner tells
// no one. Assigning a ticket to someone else tells them; taking it
// oneself does not. A severity 1 ticket tells support at once, lower
// severities do not.
func TestTicketTriggers(t *testing.T) {
	f := newNotifyFixture(t)
	other := f.user("kim@support.example.com", models.RoleSupport)
	if m := mailsOf(t, f.store, models.MailTicketSev1); len(m) != 0 {
		t.Fatal("mail before any ticket")
	}
	low := f.ticket("sev_2")
	if m := mailsOf(t, f.store, models.MailTicketSev1); len(m) != 0 {
		t.Fatalf("a sev_2 ticket queued %d", len(m))
	}
	high := f.ticket("sev_1")
	if m := mailsOf(t, f.store, models.MailTicketSev1); len(m) != 2 || m[0].Data["ticket_id"] != high.ID {
		t.Fatalf("sev_1: %+v", m)
	}
	solved := models.TicketSolved
	if _, err := f.store.UpdateTicket(f.ctx, f.owner.Actor(), low.ID, models.UpdateTicketInput{Status: &solved}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.UpdateTicket(f.ctx, f.support.Actor(), high.ID, models.UpdateTicketInput{Status: &solved}); err != nil {
		t.Fatal(err)
	}
	if m := mailsOf(t, f.store, models.MailTicketSolved); len(m) != 1 || m[0].Data["ticket_id"] != high.ID || m[0].Recipient != f.owner.Email {
		t.Fatalf("solved: %+v", m)
	}
	if _, err := f.store.AssignTicket(f.ctx, f.support.Actor(), low.ID, models.AssignTicketInput{Assignee: f.support.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.AssignTicket(f.ctx, f.support.Actor(), low.ID, models.AssignTicketInput{Assignee: other.ID}); err != nil {
		t.Fatal(err)
	}
	if m := mailsOf(t, f.store, models.MailTicketAssigned); len(m) != 1 || m[0].Recipient != other.Email || m[0].Data["by"] != f.support.Email {
		t.Fatalf("assigned: %+v", m)
	}
}

// A change by support tells the account's users which fields changed; a
// change that changes nothing tells no one.
func TestAccountChangeTrigger(t *testing.T) {
	f := newNotifyFixture(t)
	quota, inactive := 30, models.AccountInactive
	in := models.UpdateAccountInput{FilesystemQuota: &quota, Status: &inactive, Reason: "Ticket 7"}
	for range 2 { // the second changes nothing
		if _, err := f.store.UpdateAccountByID(f.ctx, f.support.Actor(), *f.owner.AccountID, in); err != nil {
			t.Fatal(err)
		}
	}
	m := mailsOf(t, f.store, models.MailAccountChanged)
	if len(m) != 1 || m[0].Data["change.filesystem_quota"] != "30" || m[0].Data["change.status"] != "inactive" ||
		m[0].Data["reason"] != "Ticket 7" {
		t.Fatalf("%+v", m)
	}
}

// notifyMembership tells the user, unless they turned the topic off.
func TestMembershipNotice(t *testing.T) {
	f := newNotifyFixture(t)
	if err := f.store.NotifyMembership(f.ctx, f.owner.ID, *f.owner.AccountID, models.MembershipAdded, "member"); err != nil {
		t.Fatal(err)
	}
	if err := f.store.NotifyMembership(f.ctx, f.owner.ID, *f.owner.AccountID, "promoted", "owner"); err == nil {
		t.Error("an unknown change was accepted")
	}
	if err := f.store.SetNotificationPreferences(f.ctx, f.owner.Actor(), models.NotificationPreferencesInput{On: []string{models.TopicTickets}}); err != nil {
		t.Fatal(err)
	}
	if err := f.store.NotifyMembership(f.ctx, f.owner.ID, *f.owner.AccountID, models.MembershipRoleChanged, "viewer"); err != nil {
		t.Fatal(err)
	}
	if m := mailsOf(t, f.store, models.MailMembershipChanged); len(m) != 1 || m[0].Data["what"] != models.MembershipAdded || m[0].Data["role"] != "member" {
		t.Fatalf("%+v", m)
	}
}

// endpoint creates an endpoint of the owner's account failing since
// since.
func (f *notifyFixture) endpoint(owner *models.User, since time.Time) *models.WebhookEndpoint {
	f.t.Helper()
	e, _, err := f.store.CreateWebhookEndpoint(f.ctx, owner.Actor(), models.SetWebhookInput{URL: "https://hooks.example.com/secret-path?token=x"})
	if err != nil {
		f.t.Fatal(err)
	}
	f.failingSince(e.ID, &since)
	return e
}

func (f *notifyFixture) failingSince(id string, since *time.Time) {
	f.t.Helper()
	if err := f.store.DB().Model(&models.WebhookEndpoint{}).Where("id = ?", id).Update("failing_since", since).Error; err != nil {
		f.t.Fatal(err)
	}
}

func (f *notifyFixture) sweep() int {
	f.t.Helper()
	n, err := f.store.SweepNotifications(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// A flapping endpoint sends at most one "failing" mail a day: failing
// for less than an hour tells no one; recovering and failing again the
// same day adds nothing; the next day, still failing, one more. The
// mail names the host, never the path or query.
func TestFlappingEndpointOneMailADay(t *testing.T) {
	f := newNotifyFixture(t)
	f.clock.Set(time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC))
	e := f.endpoint(f.owner, f.clock.Now().Add(-30*time.Minute))
	if n := f.sweep(); n != 0 {
		t.Fatalf("failing 30 minutes queued %d", n)
	}
	f.clock.Advance(31 * time.Minute)
	if n := f.sweep(); n != 1 {
		t.Fatalf("failing an hour queued %d", n)
	}
	for range 10 { // recovers, fails again for over an hour, all day
		f.failingSince(e.ID, nil)
		since := f.clock.Now()
		f.failingSince(e.ID, &since)
		f.clock.Advance(61 * time.Minute)
		if n := f.sweep(); n != 0 {
			t.Fatalf("flapping the same day queued %d", n)
		}
	}
	f.clock.Set(time.Date(2026, 3, 3, 0, 30, 0, 0, time.UTC))
	if n := f.sweep(); n != 1 {
		t.Fatalf("the next day queued %d", n)
	}
	m := mailsOf(t, f.store, models.MailWebhookFailing)
	if len(m) != 2 || m[0].Data["host"] != "hooks.example.com" || m[0].Recipient != f.owner.Email {
		t.Fatalf("%+v", m)
	}
	raw, _ := json.Marshal(m[0].Data)
	if strings.Contains(string(raw), "secret-path") || strings.Contains(string(raw), "token=x") {
		t.Errorf("the mail's data holds the endpoint's path or query: %s", raw)
	}
}

// An endpoint disabled for failing tells its account once per disable.
func TestEndpointDisabledOncePerDisable(t *testing.T) {
	f := newNotifyFixture(t)
	e := f.endpoint(f.owner, f.clock.Now().Add(-models.WebhookFailingLimit-time.Hour))
	for range 2 {
		if _, err := f.store.DisableFailingWebhookEndpoints(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	if m := mailsOf(t, f.store, models.MailWebhookDisabled); len(m) != 1 || m[0].Data["endpoint_id"] != e.ID || m[0].Data["reason"] == "" {
		t.Fatalf("%+v", m)
	}
	if _, err := f.store.SetWebhookEnabled(f.ctx, f.owner.Actor(), e.ID, true); err != nil {
		t.Fatal(err)
	}
	since := f.clock.Now().Add(-models.WebhookFailingLimit - time.Hour)
	f.failingSince(e.ID, &since)
	if _, err := f.store.DisableFailingWebhookEndpoints(f.ctx); err != nil {
		t.Fatal(err)
	}
	if m := mailsOf(t, f.store, models.MailWebhookDisabled); len(m) != 2 {
		t.Fatalf("a second disable: %d mails", len(m))
	}
}

// A key expiring within 7 days tells its holder once; a key expiring
// later, one without expiry and a revoked one tell no one.
func TestExpiringKeyOncePerKey(t *testing.T) {
	f := newNotifyFixture(t)
	key := func(name, expires string) *models.APIKey {
		k, _, err := f.store.CreateAPIKey(f.ctx, f.owner.Actor(), models.CreateAPIKeyInput{Name: name, Expires: expires})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	soon := key("soon", "5d")
	key("later", "30d")
	key("never", "")
	revoked := key("revoked", "2d")
	if _, err := f.store.RevokeAPIKey(f.ctx, f.owner.Actor(), revoked.ID); err != nil {
		t.Fatal(err)
	}
	if n := f.sweep() + f.sweep(); n != 1 {
		t.Fatalf("queued %d", n)
	}
	m := mailsOf(t, f.store, models.MailAPIKeyExpiring)
	if len(m) != 1 || m[0].Data["key_id"] != soon.ID || m[0].Data["name"] != "soon" {
		t.Fatalf("%+v", m)
	}
	f.clock.Advance(24 * time.Hour) // "later" is still 29 days away
	if n := f.sweep(); n != 0 {
		t.Fatalf("queued %d the next day", n)
	}
}

// Several replicas sweeping at once queue one mail per notification: on
// two stores sharing one database, sixteen concurrent sweeps over five
// accounts, each with a failing endpoint and an expiring key, queue five
// of each.
func TestConcurrentSweepsQueueOne(t *testing.T) {
	dsn := modelstest.DSN(t)
	clock := modelstest.NewClock()
	a := modelstest.OpenAt(t, dsn, models.WithClock(clock.Now))
	b := modelstest.OpenAt(t, dsn, models.WithClock(clock.Now))
	f := &notifyFixture{t: t, ctx: context.Background(), store: a, clock: clock}
	const accounts = 5
	for i := range accounts {
		u := f.user(fmt.Sprintf("owner%d@example.com", i), models.RoleOwner)
		f.endpoint(u, clock.Now().Add(-2*time.Hour))
		if _, _, err := a.CreateAPIKey(f.ctx, u.Actor(), models.CreateAPIKeyInput{Name: "ci", Expires: "3d"}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := []*models.Store{a, b}[i%2].SweepNotifications(f.ctx)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	failing, expiring := mailsOf(t, a, models.MailWebhookFailing), mailsOf(t, a, models.MailAPIKeyExpiring)
	if len(failing) != accounts || len(expiring) != accounts || total != 2*accounts {
		t.Fatalf("queued %d failing and %d expiring mails (sweeps reported %d), want %d each",
			len(failing), len(expiring), total, accounts)
	}
	seen := map[string]bool{}
	for _, m := range append(failing, expiring...) {
		if seen[m.Kind+m.Recipient] {
			t.Errorf("%s got two %s mails", m.Recipient, m.Kind)
		}
		seen[m.Kind+m.Recipient] = true
	}
}

// Records older than the retention are forgotten by the sweep.
func TestSweepPrunesOldRecords(t *testing.T) {
	f := newNotifyFixture(t)
	f.ticket("sev_1")
	count := func() (n int64) {
		if err := f.store.DB().Model(&models.Notification{}).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count() != 1 {
		t.Fatalf("%d records", count())
	}
	f.clock.Advance(models.NotificationRetention + time.Hour)
	f.sweep()
	if count() != 0 {
		t.Fatalf("%d records after the retention", count())
	}
}

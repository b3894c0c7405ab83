package models_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func TestCreateTicketValidation(t *testing.T) {
	f := newTicketFixture(t)
	valid := func() models.CreateTicketInput {
		return models.CreateTicketInput{Subject: "GPU slow", Description: "Since noon.", Type: models.TicketIncident, Severity: ptr("sev_1")}
	}
	cases := []struct {
		name  string
		edit  func(*models.CreateTicketInput)
		field string
	}{
		{"subject missing", func(in *models.CreateTicketInput) { in.Subject = "  " }, "subject"},
		{"subject too long", func(in *models.CreateTicketInput) { in.Subject = strings.Repeat("s", 201) }, "subject"},
		{"description missing", func(in *models.CreateTicketInput) { in.Description = "" }, "description"},
		{"type missing", func(in *models.CreateTicketInput) { in.Type = "" }, "type"},
		{"type unknown", func(in *models.CreateTicketInput) { in.Type = "automated_event" }, "type"},
		{"incident without severity", func(in *models.CreateTicketInput) { in.Severity = nil }, "severity"},
		{"incident with blank severity", func(in *models.CreateTicketInput) { in.Severity = ptr("") }, "severity"},
		{"unknown severity", func(in *models.CreateTicketInput) { in.Severity = ptr("sev_9") }, "severity"},
		{"service request with severity", func(in *models.CreateTicketInput) { in.Type = models.TicketServiceRequest }, "severity"},
		{"bad ip", func(in *models.CreateTicketInput) { in.IP = ptr("10.0.0.300") }, "ip"},
		{"malformed instance id", func(in *models.CreateTicketInput) { in.InstanceID = ptr("i-123") }, "instance_id"},
		{"unknown instance", func(in *models.CreateTicketInput) { in.InstanceID = ptr(models.NewID()) }, "instance_id"},
		{"malformed cluster id", func(in *models.CreateTicketInput) { in.ClusterID = ptr("c1") }, "cluster_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := valid()
			tc.edit(&in)
			_, err := f.store.CreateTicket(f.ctx, f.owner, in)
			expectCode(t, err, models.CodeInvalidParameters, tc.field)
		})
	}
	if n := f.count(&models.Ticket{}, ""); n != 0 {
		t.Fatalf("%d tickets written by refused input", n)
	}
	if _, err := f.store.CreateTicket(f.ctx, f.support, valid()); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("support creating a ticket: %v", err)
	}
	sr, err := f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: "Quota", Description: "More GPUs",
		Type: models.TicketServiceRequest, Severity: ptr(" "), IP: ptr("2001:db8::1")})
	if err != nil || sr.Severity != nil || *sr.InstanceIP != "2001:db8::1" {
		t.Fatalf("service request: %+v, %v", sr, err)
	}
}

func TestCreateTicketWritesCommentEventAndAudit(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://hooks.example.com/cp")
	tk := f.incident(f.owner, "Node down")
	if tk.Status != models.TicketNew || tk.Source != models.TicketSourceDashboard {
		t.Fatalf("ticket %+v", tk)
	}
	d, err := f.store.Ticket(f.ctx, f.owner, tk.ID)
	if err != nil || len(d.Comments) != 1 || d.Comments[0].Body != "It broke." || d.Comments[0].Author != "owner@example.com" {
		t.Fatalf("detail %+v, %v", d, err)
	}
	var ev models.WebhookEvent
	if err := f.store.DB().Where("ticket_id = ?", tk.ID).Take(&ev).Error; err != nil {
		t.Fatal(err)
	}
	var env struct {
		ID, Object, Type, APIVersion string
		Created                      int64
		Data                         map[string]any
	}
	if err := json.Unmarshal([]byte(ev.Payload), &env); err != nil {
		t.Fatal(err)
	}
	if env.ID != ev.ID || env.Object != "event" || env.Type != models.EventTicketCreated || env.Created != f.clock.Now().Unix() ||
		env.Data["status"] != "new" || env.Data["object"] != "ticket" || env.Data["cluster_id"] != nil {
		t.Fatalf("envelope %s", ev.Payload)
	}
	if n := f.count(&models.WebhookDelivery{}, "event_id = ? AND status = ?", ev.ID, models.DeliveryPending); n != 1 {
		t.Fatalf("%d deliveries", n)
	}
	if n := f.count(&models.AuditEvent{}, "resource_name = ? AND action = ?", "ticket", "created"); n != 1 {
		t.Fatalf("%d audit events", n)
	}
	if f.wakes.Load() != 1 {
		t.Fatalf("wake called %d times", f.wakes.Load())
	}
}

// Every pair of statuses: the machine's moves succeed with one event and
// one audit event; every other move is refused naming status and changes
// nothing.
func TestTicketStatusMachine(t *testing.T) {
	f := newTicketFixture(t)
	allowed := map[[2]string]bool{}
	for _, m := range [][2]string{
		{"new", "open"}, {"new", "pending"}, {"new", "on_hold"}, {"new", "solved"}, {"new", "closed"},
		{"open", "pending"}, {"open", "on_hold"}, {"open", "solved"}, {"open", "closed"},
		{"pending", "open"}, {"pending", "on_hold"}, {"pending", "solved"}, {"pending", "closed"},
		{"on_hold", "open"}, {"on_hold", "pending"}, {"on_hold", "solved"}, {"on_hold", "closed"},
		{"solved", "open"}, {"solved", "closed"},
	} {
		allowed[m] = true
	}
	for _, from := range models.TicketStatuses {
		for _, to := range models.TicketStatuses {
			if from == to {
				continue
			}
			t.Run(from+"->"+to, func(t *testing.T) {
				tk := f.ticketIn(from)
				events, audits := f.count(&models.WebhookEvent{}, ""), f.count(&models.AuditEvent{}, "")
				got, err := f.store.UpdateTicket(f.ctx, f.support, tk.ID, models.UpdateTicketInput{Status: ptr(to)})
				if !allowed[[2]string{from, to}] {
					expectCode(t, err, models.CodeInvalidParameters, "status")
					f.expectStatus(tk.ID, from)
					if f.count(&models.WebhookEvent{}, "") != events || f.count(&models.AuditEvent{}, "") != audits {
						t.Fatal("a refused move wrote an event")
					}
					return
				}
				if err != nil || got.Status != to {
					t.Fatalf("move: %+v, %v", got, err)
				}
				f.expectStatus(tk.ID, to)
				want := models.EventTicketStatusChanged
				if to == models.TicketSolved || to == models.TicketClosed {
					want = models.EventTicketResolved
				}
				if f.count(&models.WebhookEvent{}, "") != events+1 ||
					f.count(&models.WebhookEvent{}, "ticket_id = ? AND type = ? AND payload LIKE ?", tk.ID, want, `%"status":"`+to+`"%`) != 1 {
					t.Fatalf("want one %s event with status %s", want, to)
				}
				if f.count(&models.AuditEvent{}, "") != audits+1 {
					t.Fatal("want exactly one audit event")
				}
			})
		}
	}
}

// ticketIn creates a ticket and walks it to status through allowed moves.
func (f *ticketFixture) ticketIn(status string) *models.Ticket {
	f.t.Helper()
	tk := f.incident(f.owner, "walk to "+status)
	path := map[string][]string{"open": {"open"}, "pending": {"pending"}, "on_hold": {"on_hold"},
		"solved": {"solved"}, "closed": {"solved", "closed"}}[status]
	for _, s := range path {
		if _, err := f.store.UpdateTicket(f.ctx, f.support, tk.ID, models.UpdateTicketInput{Status: ptr(s)}); err != nil {
			f.t.Fatal(err)
		}
	}
	return tk
}

func (f *ticketFixture) expectStatus(id, want string) {
	f.t.Helper()
	d, err := f.store.Ticket(f.ctx, f.support, id)
	if err != nil || d.Status != want {
		f.t.Fatalf("status %v (%v), want %s", d, err, want)
	}
}

func TestOwnerMayOnlySolve(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "mine")
	_, err := f.store.UpdateTicket(f.ctx, f.owner, tk.ID, models.UpdateTicketInput{Status: ptr("pending")})
	expectCode(t, err, models.CodeInvalidParameters, "status")
	got, err := f.store.UpdateTicket(f.ctx, f.owner, tk.ID, models.UpdateTicketInput{Status: ptr("solved")})
	if err != nil || got.Status != models.TicketSolved || got.ResolvedAt == nil {
		t.Fatalf("solve: %+v, %v", got, err)
	}
	// Solving a solved ticket again is not a move: accepted, nothing written.
	audits := f.count(&models.AuditEvent{}, "")
	if _, err := f.store.UpdateTicket(f.ctx, f.owner, tk.ID, models.UpdateTicketInput{Status: ptr("solved")}); err != nil {
		t.Fatal(err)
	}
	if f.count(&models.AuditEvent{}, "") != audits {
		t.Fatal("a no-op update wrote an audit event")
	}
}

func TestClosedTicketCannotChange(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.ticketIn(models.TicketClosed)
	for field, in := range map[string]models.UpdateTicketInput{
		"status":   {Status: ptr("open")},
		"severity": {Severity: ptr("sev_1")},
		"comment":  {Comment: &models.TicketCommentInput{Body: "hello?"}},
	} {
		_, err := f.store.UpdateTicket(f.ctx, f.support, tk.ID, in)
		expectCode(t, err, models.CodeInvalidParameters, field)
	}
	if n := f.count(&models.TicketComment{}, "ticket_id = ?", tk.ID); n != 1 {
		t.Fatalf("%d comments on a closed ticket", n)
	}
}

func TestSeverityAndComments(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "sev")
	got, err := f.store.UpdateTicket(f.ctx, f.owner, tk.ID, models.UpdateTicketInput{Severity: ptr("sev_1"),
		Comment: &models.TicketCommentInput{Body: "Worse now."}})
	if err != nil || *got.Severity != "sev_1" {
		t.Fatalf("%+v, %v", got, err)
	}
	f.clock.Advance(time.Minute)
	if _, err := f.store.UpdateTicket(f.ctx, f.support, tk.ID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: "Looking."}}); err != nil {
		t.Fatal(err)
	}
	d, _ := f.store.Ticket(f.ctx, f.owner, tk.ID)
	authors := []string{}
	for _, c := range d.Comments {
		authors = append(authors, c.Author+":"+c.Body)
	}
	if !slices.Equal(authors, []string{"owner@example.com:It broke.", "owner@example.com:Worse now.", "support:Looking."}) {
		t.Fatalf("comments %v", authors)
	}
	if !d.UpdatedAt.Equal(f.clock.Now()) {
		t.Fatalf("updated_at %v", d.UpdatedAt)
	}
	// The severity and the owner's comment write no event; support's first
	// reply opens the new ticket, which is a status change.
	if n := f.count(&models.WebhookEvent{}, "ticket_id = ?", tk.ID); n != 2 {
		t.Fatalf("severity and comments wrote %d events, want ticket.created and the first reply's ticket.status_changed", n)
	}
	if n := f.count(&models.WebhookEvent{}, "ticket_id = ? AND type = ?", tk.ID, "ticket.status_changed"); n != 1 {
		t.Fatalf("%d status changes, want the first reply's one", n)
	}
	sr, _ := f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: "s", Description: "d", Type: models.TicketServiceRequest})
	_, err = f.store.UpdateTicket(f.ctx, f.owner, sr.ID, models.UpdateTicketInput{Severity: ptr("sev_1")})
	expectCode(t, err, models.CodeInvalidParameters, "severity")
	_, err = f.store.UpdateTicket(f.ctx, f.owner, sr.ID, models.UpdateTicketInput{})
	expectCode(t, err, models.CodeInvalidParameters, "")
	_, err = f.store.UpdateTicket(f.ctx, f.owner, sr.ID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: " "}})
	expectCode(t, err, models.CodeInvalidParameters, "comment.body")
}

func TestAnotherAccountsTicketIsNotFound(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "private")
	for _, id := range []string{tk.ID, models.NewID(), "not-an-id"} {
		_, err := f.store.Ticket(f.ctx, f.other, id)
		expectCode(t, err, models.CodeTicketNotFound, "")
		_, err = f.store.UpdateTicket(f.ctx, f.other, id, models.UpdateTicketInput{Status: ptr("solved")})
		expectCode(t, err, models.CodeTicketNotFound, "")
	}
	if _, err := f.store.Ticket(f.ctx, f.support, tk.ID); err != nil {
		t.Fatalf("support reads any ticket: %v", err)
	}
}

// A ticket change whose transaction fails after the event row was written
// leaves no ticket, no event, no delivery and no wake-up.
func TestEventExistsOnlyIfChangeCommitted(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://hooks.example.com/cp")
	tk := f.incident(f.owner, "before")
	wakes := f.wakes.Load()
	// The audit event is written past GORM (auditRow.write): the database
	// itself refuses it, with a trigger.
	failAudit(t, f.store.DB())
	injected := func(err error) bool { return err != nil && strings.Contains(err.Error(), "injected audit failure") }
	if _, err := f.store.CreateTicket(f.ctx, f.owner, models.CreateTicketInput{Subject: "lost", Description: "d",
		Type: models.TicketServiceRequest}); !injected(err) {
		t.Fatalf("create: %v", err)
	}
	if _, err := f.store.UpdateTicket(f.ctx, f.support, tk.ID, models.UpdateTicketInput{Status: ptr("solved")}); !injected(err) {
		t.Fatalf("update: %v", err)
	}
	if n := f.count(&models.Ticket{}, ""); n != 1 {
		t.Fatalf("%d tickets", n)
	}
	if n := f.count(&models.WebhookEvent{}, ""); n != 1 {
		t.Fatalf("%d events, want only the committed ticket.created", n)
	}
	if n := f.count(&models.WebhookDelivery{}, ""); n != 1 {
		t.Fatalf("%d deliveries", n)
	}
	f.expectStatus(tk.ID, models.TicketNew)
	if f.wakes.Load() != wakes {
		t.Fatal("a rolled-back change woke the dispatcher")
	}
}

// Concurrent changes to one ticket are serialised on its row: the same
// move requested eight times at once is made once (one event, one audit
// event), and eight concurrent comments all land, numbered in order.
func TestConcurrentTicketChanges(t *testing.T) {
	f := newTicketFixture(t)
	tk := f.incident(f.owner, "busy")
	run := func(n int, op func(i int) error) {
		t.Helper()
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			go func() { errs <- op(i) }()
		}
		for i := 0; i < n; i++ {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
	run(8, func(int) error {
		_, err := f.store.UpdateTicket(f.ctx, f.support, tk.ID, models.UpdateTicketInput{Status: ptr("pending")})
		return err
	})
	if n := f.count(&models.WebhookEvent{}, "ticket_id = ? AND type = ?", tk.ID, models.EventTicketStatusChanged); n != 1 {
		t.Fatalf("%d status_changed events for one move", n)
	}
	if n := f.count(&models.AuditEvent{}, "resource_name = ? AND action = ?", "ticket", "updated"); n != 1 {
		t.Fatalf("%d audit events for one move", n)
	}
	run(8, func(i int) error {
		_, err := f.store.UpdateTicket(f.ctx, f.owner, tk.ID, models.UpdateTicketInput{Comment: &models.TicketCommentInput{Body: "again"}})
		return err
	})
	d, _ := f.store.Ticket(f.ctx, f.owner, tk.ID)
	for i, c := range d.Comments {
		if c.Seq != i {
			t.Fatalf("comment %d has seq %d", i, c.Seq)
		}
	}
	if len(d.Comments) != 9 {
		t.Fatalf("%d comments, want 9", len(d.Comments))
	}
}

// failAudit makes the database refuse every audit event from now until
// the test ends, with "injected audit failure".
func failAudit(t *testing.T, db *gorm.DB) {
	t.Helper()
	create := []string{"CREATE TRIGGER test_fail_audit BEFORE INSERT ON audit_events " +
		"BEGIN SELECT RAISE(ABORT, 'injected audit failure'); END"}
	drop := []string{"DROP TRIGGER test_fail_audit"}
	if modelstest.Backend() == "postgres" {
		create = []string{"CREATE FUNCTION test_fail_audit() RETURNS trigger LANGUAGE plpgsql AS " +
			"$$ BEGIN RAISE EXCEPTION 'injected audit failure'; END $$",
			"CREATE TRIGGER test_fail_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION test_fail_audit()"}
		drop = []string{"DROP TRIGGER test_fail_audit ON audit_events", "DROP FUNCTION test_fail_audit()"}
	}
	for _, q := range create {
		if err := db.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, q := range drop {
			if err := db.Exec(q).Error; err != nil {
				t.Error(err)
			}
		}
	})
}

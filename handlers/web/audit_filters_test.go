package web_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
)

// Support staff's changes read "Support" to the owner, whatever the
// agent's email; the actor filter selects them; webhook switches and
// rotations say which.
func TestAuditLogActorsAndWebhookWording(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	help := e.user("help@example.com", models.RoleSupport)
	tk := e.ticket(ada, "It broke")
	e.move(help, tk.ID, "pending")
	ep := e.webhook(ada, "https://hooks.example.com/")
	ctx := context.Background()
	if _, err := e.store.SetWebhookEnabled(ctx, ada.Actor(), ep.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SetWebhookEnabled(ctx, ada.Actor(), ep.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.RotateWebhookToken(ctx, ada.Actor(), ep.ID); err != nil {
		t.Fatal(err)
	}
	b := e.signedIn("ada@example.com")
	b.get("/audit-events").expect(http.StatusOK).
		contains(`Support ticket <a href="/tickets/`+tk.ID+`">“It broke”</a> updated`, `<td data-label="Actor"><span class="truncate" title="Support">Support</span></td>`,
			`Webhook <a href="/webhook/`+ep.ID+`">https://hooks.example.com/</a> set up`,
			`Webhook <a href="/webhook/`+ep.ID+`">https://hooks.example.com/</a> disabled`,
			`Webhook <a href="/webhook/`+ep.ID+`">https://hooks.example.com/</a> enabled`,
			`Token of webhook <a href="/webhook/`+ep.ID+`">https://hooks.example.com/</a> rotated`,
			`<option value="cloud.webhook">Webhook</option>`, `<option value="cloud.ticket">Support tickets</option>`).
		lacks("Another user", "Webhook changed", "help@example.com")
	support := b.get("/audit-events?actor=support").expect(http.StatusOK).
		contains(`<option value="support" selected>Support</option>`, "“It broke”</a> updated").
		lacks("set up", "Signed in to the dashboard")
	if n := len(support.eventIDs()); n != 1 {
		t.Fatalf("%d events by support, want 1", n)
	}
	b.get("/audit-events?actor=operator").expect(http.StatusOK).contains("User created").lacks("Webhook <a")
	b.get("/audit-events?actor=root").expect(http.StatusUnprocessableEntity).
		fieldError("actor", "Actor must be one of owner, member, viewer, support, operator, system.")

	var roles []string
	e.store.DB().Model(&models.AuditEvent{}).Where("resource_name = ? AND action = ?", "ticket", "updated").
		Pluck("actor_role", &roles)
	if len(roles) != 1 || roles[0] != models.RoleSupport {
		t.Fatalf("the support change recorded roles %v", roles)
	}
}

// Words are looked for in the details, without regard to case, taken
// literally (LIKE's wildcards and JSON's escapes included); dates from a
// date picker select whole days.
func TestAuditLogTextAndDates(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.clock.Set(time.Date(2026, 1, 3, 23, 59, 0, 0, time.UTC))
	b := e.signedIn("ada@example.com")
	e.sshKey(ada, "Build_Box")
	e.sshKey(ada, "build-box")
	e.clock.Set(time.Date(2026, 1, 4, 0, 0, 1, 0, time.UTC))
	e.sshKey(ada, "100%_sure")
	e.sshKey(ada, `quote"and<tag>`)

	b.get("/audit-events?text=build_box").expect(http.StatusOK).contains("Build_Box").lacks("build-box", "100%")
	b.get("/audit-events?text=BUILD").expect(http.StatusOK).contains("Build_Box", "build-box")
	b.get("/audit-events?text=%25_").expect(http.StatusOK).contains("100%_sure").lacks("Build_Box")
	b.get("/audit-events?text=" + "%22and%3Ctag").expect(http.StatusOK).contains("quote&#34;and&lt;tag&gt;").lacks("Build_Box")
	b.get("/audit-events?text=nothing-like-it").expect(http.StatusOK).contains("No events match these filters")
	b.get("/audit-events?text="+strings.Repeat("x", 101)).expect(http.StatusUnprocessableEntity).
		fieldError("text", "Text in details must be at most 100 characters.")

	b.get("/audit-events?start=2026-01-04&resource_type=cloud.ssh_key").expect(http.StatusOK).
		contains("100%_sure").lacks("Build_Box")
	b.get("/audit-events?end=2026-01-03&resource_type=cloud.ssh_key").expect(http.StatusOK).
		contains("Build_Box", "build-box").lacks("100%_sure")
	b.get("/audit-events?start=2026-01-03T23:59&end=2026-01-03T23:59&resource_type=cloud.ssh_key").expect(http.StatusOK).
		contains("Build_Box").lacks("100%_sure")

	// Newest first by default, oldest first on request; the toggle keeps
	// the filters.
	newest := b.get("/audit-events?resource_type=cloud.ssh_key").expect(http.StatusOK).
		contains(`href="/audit-events?order=oldest&amp;resource_type=cloud.ssh_key" id="audit-order">Show oldest first`)
	oldest := b.get("/audit-events?order=oldest&resource_type=cloud.ssh_key").expect(http.StatusOK).
		contains(`href="/audit-events?resource_type=cloud.ssh_key" id="audit-order">Show newest first`,
			`<input type="hidden" name="order" value="oldest">`)
	n, o := newest.eventIDs(), oldest.eventIDs()
	if len(n) != 4 || len(o) != 4 || n[0] != o[3] || n[3] != o[0] {
		t.Fatalf("newest %v, oldest %v", n, o)
	}
}

// The export streams every matching event, not one page, in the order
// shown; CSV cells that a spreadsheet would run as formulas are quoted.
func TestAuditLogExport(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	pub := edKey
	const keys = models.AuditPageSize + 20
	for i := range keys {
		name := fmt.Sprintf("k%03d", i)
		if i == 7 {
			name = "=HYPERLINK(\"http://evil\")"
		}
		if _, _, err := e.store.CreateSSHKey(context.Background(), ada.Actor(), models.CreateSSHKeyInput{Name: name, PublicKey: &pub}); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Millisecond)
	}
	page := b.get("/audit-events?resource_type=cloud.ssh_key").expect(http.StatusOK).
		contains(`href="/audit-events/export?format=csv&amp;resource_type=cloud.ssh_key"`,
			`href="/audit-events/export?format=jsonl&amp;resource_type=cloud.ssh_key"`, "at most 10,000 events")

	res := b.get("/audit-events/export?format=csv&resource_type=cloud.ssh_key").expect(http.StatusOK).
		hasHeader("Content-Type", "text/csv; charset=utf-8").
		hasHeader("Content-Disposition", `attachment; filename="audit-events.csv"`)
	rows, err := csv.NewReader(strings.NewReader(res.Body)).ReadAll()
	if err != nil || len(rows) != keys+1 || rows[0][0] != "event_id" || rows[1][0] != page.eventIDs()[0] {
		t.Fatalf("%d rows, %v: %.300s", len(rows), err, res.Body)
	}
	for _, row := range rows[1:] {
		for _, cell := range row {
			if strings.ContainsAny(cell[:min(1, len(cell))], "=+-@") {
				t.Fatalf("cell %q of %v may run as a formula", cell, row)
			}
		}
		if row[2] != "cloud.ssh_key" || row[6] != "owner" {
			t.Fatalf("row %v", row)
		}
	}
	if !strings.Contains(res.Body, `SSH key “=HYPERLINK(""http://evil"")” added`) {
		t.Fatal("the formula's event is missing")
	}

	res = b.get("/audit-events/export?format=jsonl&order=oldest&resource_type=cloud.ssh_key&text=k0").expect(http.StatusOK).
		hasHeader("Content-Type", "application/jsonl; charset=utf-8")
	sc := bufio.NewScanner(strings.NewReader(res.Body))
	var lines []map[string]any
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, line)
	}
	if len(lines) != 99 { // k000 to k099 but k007, which is the formula
		t.Fatalf("%d lines, want 99", len(lines))
	}
	first := lines[0]
	if first["action"] != "created" || first["actor_role"] != "owner" || first["summary"] != "SSH key “k000” added" ||
		first["actor"] != "ada@example.com" || first["resource_owner_lrn"] != "lrn:cloud:account:"+*ada.AccountID {
		t.Fatalf("first line %v", first)
	}

	b.get("/audit-events/export?format=xml").expect(http.StatusUnprocessableEntity).contains("Export as format=csv or format=jsonl.")
	b.get("/audit-events/export?format=csv&start=yesterday").expect(http.StatusUnprocessableEntity)
	e.browser().get("/audit-events/export?format=csv").redirectsTo("/sign-in?next=%2Faudit-events%2Fexport%3Fformat%3Dcsv")
}

// Many exports at once each stream every matching event: each holds a
// pool connection only while it reads a batch.
func TestAuditLogExportsAtOnce(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	for i := range 30 {
		e.sshKey(ada, fmt.Sprintf("key-%02d", i))
	}
	const clients = 16
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodGet, "/audit-events/export?format=jsonl&resource_type=cloud.ssh_key", nil)
			for name, value := range b.cookies {
				req.AddCookie(&http.Cookie{Name: name, Value: value})
			}
			res, err := e.app.Test(req, -1)
			if err != nil {
				errs <- err
				return
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			if err == nil && (res.StatusCode != http.StatusOK || strings.Count(string(body), "\n") != 30) {
				err = fmt.Errorf("status %d, %d lines", res.StatusCode, strings.Count(string(body), "\n"))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

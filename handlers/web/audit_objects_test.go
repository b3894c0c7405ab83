package web_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Each event names its object and links to it while it exists; a deleted
// object is named from the event, without a link; another account's
// objects are neither named nor linked. The times say they are UTC, as
// the filters do, and the export names people by email, not "You".
func TestAuditEventsNameAndLinkTheirObjects(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	bob := e.owner("bob@example.com")
	ctx := context.Background()
	bobsKey := e.sshKey(bob, "bobs-key")
	tk := e.ticket(ada, "Disk full")
	e.clock.Advance(time.Second)
	kept := e.webhook(ada, "https://hooks.example.com/x")
	e.clock.Advance(time.Second)
	gone := e.sshKey(ada, "old-laptop")
	e.clock.Advance(time.Second)
	if _, err := e.store.DeleteSSHKey(ctx, ada.Actor(), gone.ID); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	e.move(ada, tk.ID, "solved")

	b := e.signedIn("ada@example.com")
	b.get("/audit-events").expect(http.StatusOK).
		contains(`Webhook <a href="/webhook/`+kept.ID+`">https://hooks.example.com/x</a> set up`,
			`Support ticket <a href="/tickets/`+tk.ID+`">“Disk full”</a> opened`,
			`Support ticket <a href="/tickets/`+tk.ID+`">“Disk full”</a> updated`,
			"SSH key “old-laptop” added", "SSH key “old-laptop” deleted",
			`<label for="field-start">From (UTC)</label>`, `<th scope="col">Time (UTC)</th>`, "data-utc>").
		lacks(`href="/ssh-keys">“old-laptop”`, "bobs-key", bobsKey.ID, "Webhook set up", "Support ticket updated")

	res := b.get("/audit-events/export?format=csv").expect(http.StatusOK)
	rows, err := csv.NewReader(strings.NewReader(res.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	var summaries []string
	for _, row := range rows[1:] {
		summaries = append(summaries, row[col["summary"]])
		if actor := row[col["actor"]]; row[col["actor_role"]] == "owner" && actor != "ada@example.com" {
			t.Errorf("the export names ada as %q in %v", actor, row)
		}
	}
	if joined := strings.Join(summaries, "\n"); !strings.Contains(joined, "Webhook https://hooks.example.com/x set up") ||
		!strings.Contains(joined, "Support ticket “Disk full” updated") {
		t.Errorf("export summaries:\n%s", joined)
	}
}

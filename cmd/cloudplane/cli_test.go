package main

import (
	"context"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// owner creates an owner through the CLI and returns their API key.
func owner(t *testing.T, dsn, email string) string {
	t.Helper()
	mustCLI(t, "users", "create", "--database", dsn, "--email", email, "--password", "correct horse battery")
	return lastLine(mustCLI(t, "apikeys", "create", "--database", dsn, "--email", email))
}

func TestTicketsSetStatus(t *testing.T) {
	dsn := migrated(t, modelstest.DSN(t))
	owner(t, dsn, "owner@example.com")
	store := openDB(t, dsn)
	u, err := store.UserByEmail(context.Background(), "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := store.CreateTicket(context.Background(), u.Actor(), models.CreateTicketInput{Subject: "s", Description: "d", Type: models.TicketServiceRequest})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		status string
		ok     bool
		says   string
	}{
		{"pending", true, "is pending"},
		{"new", false, "cannot move from pending to new"},
		{"solved", true, "is solved"},
		{"on_hold", false, "cannot move from solved to on_hold"},
		{"closed", true, "is closed"},
		{"open", false, "closed and cannot change"},
		{"done", false, "unknown status"},
	}
	for _, step := range steps {
		out, errOut, code := cli(t, "tickets", "set-status", "--database", dsn, "--id", tk.ID, "--status", step.status)
		if step.ok {
			if code != 0 || !strings.Contains(out, step.says) {
				t.Fatalf("%s: exit %d, out %q, err %q", step.status, code, out, errOut)
			}
			continue
		}
		if code == 0 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, step.says) {
			t.Fatalf("%s: exit %d, stderr %q; want one line saying %q", step.status, code, errOut, step.says)
		}
	}
	if _, errOut, code := cli(t, "tickets", "set-status", "--database", dsn, "--id", models.NewID(), "--status", "open"); code == 0 || !strings.Contains(errOut, "not found") {
		t.Fatalf("unknown ticket: exit %d, %q", code, errOut)
	}
}

func TestWebhooksSet(t *testing.T) {
	dsn := migrated(t, modelstest.DSN(t))
	owner(t, dsn, "owner@example.com")
	set := func(args ...string) (string, string, int) {
		return cli(t, append([]string{"webhooks", "set", "--database", dsn, "--email", "owner@example.com"}, args...)...)
	}
	out, _, code := set("--url", "https://hooks.example.com/cloudplane")
	if token := lastLine(out); code != 0 || !strings.HasPrefix(token, models.WebhookTokenPrefix) || !strings.Contains(out, "whsec_") {
		t.Fatalf("exit %d, out %q", code, out)
	}
	out, _, _ = set("--url", "https://hooks.example.com/cloudplane", "--token", "given-token-0123456789")
	if lastLine(out) != "given-token-0123456789" {
		t.Fatalf("given token not printed last: %q", out)
	}
	if _, errOut, code := set("--url", "http://127.0.0.1:9/hook"); code == 0 || !strings.Contains(errOut, "https") {
		t.Fatalf("plain http to loopback accepted: exit %d %q", code, errOut)
	}
	if _, errOut, code := set("--url", "http://127.0.0.1:9/hook", "--webhook-allow-private"); code != 0 {
		t.Fatalf("with --webhook-allow-private: exit %d %q", code, errOut)
	}
	var audits int64
	openDB(t, dsn).DB().Model(&models.AuditEvent{}).Where("resource_name = ?", "webhook").Count(&audits)
	if audits != 3 {
		t.Fatalf("%d audit events for three changes", audits)
	}
}

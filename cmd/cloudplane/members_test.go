package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// The members commands list, change and remove an account's members,
// named by its owner's email; the last owner stays, and a wrong role or
// an unknown member is one line on stderr.
func TestMembersCommands(t *testing.T) {
	dsn := migrated(t, modelstest.DSN(t))
	owner(t, dsn, "ada@example.com")
	store := openDB(t, dsn)
	ctx := context.Background()
	ada, err := store.MemberActorByEmail(ctx, "ada@example.com", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	_, bobKey := modelstest.Member(t, store, ada, "bob@example.com", models.RoleMember)

	list := mustCLI(t, "members", "list", "--database", dsn, "--account", "ada@example.com")
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "EMAIL") || !strings.Contains(lines[1], "ada@example.com  owner") ||
		!strings.Contains(lines[2], "bob@example.com  member") {
		t.Fatalf("members list:\n%s", list)
	}
	out := mustCLI(t, "members", "set-role", "--database", dsn, "--account", "ada@example.com", "--email", "bob@example.com", "--role", "viewer")
	if !strings.Contains(out, "bob@example.com is now a viewer") {
		t.Fatalf("set-role: %q", out)
	}
	if a, err := store.Authenticate(ctx, bobKey); err != nil || a.Role != models.RoleViewer {
		t.Fatalf("bob's key after set-role: %+v %v", a, err)
	}
	for _, args := range [][]string{
		{"members", "set-role", "--database", dsn, "--account", "ada@example.com", "--email", "ada@example.com", "--role", "member"},
		{"members", "remove", "--database", dsn, "--account", "ada@example.com", "--email", "ada@example.com"},
		{"members", "set-role", "--database", dsn, "--account", "ada@example.com", "--email", "bob@example.com", "--role", "admin"},
		{"members", "remove", "--database", dsn, "--account", "ada@example.com", "--email", "nobody@example.com"},
		{"members", "list", "--database", dsn, "--account", "nobody@example.com"},
		{"members", "list", "--database", dsn},
	} {
		if _, errOut, code := cli(t, args...); code == 0 || strings.Count(errOut, "\n") != 1 {
			t.Fatalf("%v: exit %d, stderr %q; want one line and a failure", args, code, errOut)
		}
	}
	mustCLI(t, "members", "remove", "--database", dsn, "--account", "ada@example.com", "--email", "bob@example.com")
	if _, err := openDB(t, dsn).Authenticate(ctx, bobKey); models.ErrorCode(err) != models.CodeInvalidAPIKey {
		t.Fatalf("removed member's key: %v", err)
	}
	list = mustCLI(t, "members", "list", "--database", dsn, "--account", "ada@example.com")
	if strings.Contains(list, "bob@") {
		t.Fatalf("members list after remove:\n%s", list)
	}
}

// members invite queues the mail and prints the link, which opens the
// invitation; a member is refused, a bad role and the daily cap are one
// line on stderr and a failure.
func TestMembersInvite(t *testing.T) {
	dsn := migrated(t, modelstest.DSN(t))
	owner(t, dsn, "ada@example.com")
	owner(t, dsn, "bob@example.com")
	ctx := context.Background()
	out := mustCLI(t, "members", "invite", "--database", dsn, "--account", "ada@example.com",
		"--email", "Carol@Example.com", "--role", "viewer", "--base-url", "https://cloud.example.com/")
	link := regexp.MustCompile(`https://cloud\.example\.com/invitations/([0-9a-f]{96})\n`).FindStringSubmatch(out)
	if !strings.Contains(out, "carol@example.com invited to the account of ada@example.com as viewer") || link == nil {
		t.Fatalf("members invite: %q", out)
	}
	store := openDB(t, dsn)
	info, err := store.CheckInvitation(ctx, link[1])
	if err != nil || info.Email != "carol@example.com" || info.Role != "viewer" || info.AccountOwnerEmail != "ada@example.com" {
		t.Fatalf("invitation %+v, %v", info, err)
	}
	ada, err := store.MemberActorByEmail(ctx, "ada@example.com", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if got := modelstest.AuditCount(t, store, ada.AccountID, "invitation"); got != 1 {
		t.Fatalf("%d invitation events, want 1", got)
	}
	for _, args := range [][]string{
		{"members", "invite", "--database", dsn, "--account", "ada@example.com", "--email", "ada@example.com", "--role", "member"},
		{"members", "invite", "--database", dsn, "--account", "ada@example.com", "--email", "x@example.com", "--role", "admin"},
		{"members", "invite", "--database", dsn, "--account", "ada@example.com", "--email", "not an email", "--role", "member"},
		{"members", "invite", "--database", dsn, "--account", "ada@example.com", "--email", "x@example.com"},
	} {
		if _, errOut, code := cli(t, args...); code == 0 || strings.Count(errOut, "\n") != 1 {
			t.Fatalf("%v: exit %d, stderr %q; want one line and a failure", args, code, errOut)
		}
	}
	for i := range models.InvitationsPerDay - 1 {
		if _, err := store.CreateInvitation(ctx, ada, models.InviteInput{Email: fmt.Sprintf("p%d@example.com", i), Role: "viewer"}); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, code := cli(t, "members", "invite", "--database", dsn, "--account", "ada@example.com", "--email", "late@example.com", "--role", "member")
	if code == 0 || !strings.Contains(errOut, "50 invitations in the last 24 hours") {
		t.Fatalf("51st invitation: exit %d, %q", code, errOut)
	}
}

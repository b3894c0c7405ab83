package main

import (
	"context"
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

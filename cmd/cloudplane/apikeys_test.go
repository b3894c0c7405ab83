package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func TestAPIKeysCreateWithScopeAndExpiry(t *testing.T) {
	dsn := migrated(t, modelstest.DSN(t))
	owner(t, dsn, "owner@example.com")
	store := openDB(t, dsn)
	ctx := context.Background()
	u, err := store.UserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	keyByPrefix := func(secret string) models.APIKey {
		t.Helper()
		keys, err := store.APIKeys(ctx, u.Actor())
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if strings.HasPrefix(secret, k.Prefix+"_") {
				return k
			}
		}
		t.Fatalf("no key for %s", secret)
		return models.APIKey{}
	}

	out := mustCLI(t, "apikeys", "create", "--database", dsn, "--email", u.Email, "--read-only", "--expires", "90d")
	k := keyByPrefix(lastLine(out))
	if k.Scope != models.ScopeReadOnly || k.ExpiresAt == nil ||
		k.ExpiresAt.Sub(time.Now().AddDate(0, 0, 90)).Abs() > time.Minute || !strings.Contains(out, "read-only") {
		t.Fatalf("key %+v; output %q", k, out)
	}

	out = mustCLI(t, "apikeys", "create", "--database", dsn, "--email", u.Email, "--expires", "2099-01-31")
	k = keyByPrefix(lastLine(out))
	if want := time.Date(2099, 2, 1, 0, 0, 0, 0, time.UTC); k.Scope != models.ScopeFull || k.ExpiresAt == nil || !k.ExpiresAt.Equal(want) {
		t.Fatalf("key %+v, want full access until %s", k, want)
	}

	for _, bad := range []string{"2001-01-01", "0d", "soon"} {
		if _, errOut, code := cli(t, "apikeys", "create", "--database", dsn, "--email", u.Email, "--expires", bad); code == 0 ||
			strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "expires") {
			t.Errorf("--expires %s: exit %d, stderr %q; want one line naming expires", bad, code, errOut)
		}
	}
}

package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// newKey creates another key for the env's owner.
func (e *env) newKey(in models.CreateAPIKeyInput) string {
	e.t.Helper()
	_, secret, err := e.store.CreateAPIKey(context.Background(), e.owner.Actor(), in)
	if err != nil {
		e.t.Fatal(err)
	}
	return secret
}

func TestReadOnlyKeyReadsButCannotWrite(t *testing.T) {
	e := newEnv(t)
	e.createFilesystem(e.key, "datasets")
	ro := e.newKey(models.CreateAPIKeyInput{Name: "dashboards", ReadOnly: true})
	for _, path := range []string{"/api/v1/filesystems", "/api/v1/firewall-rules", "/api/v1/instances", "/api/v1/audit-events"} {
		e.doAs(ro, http.MethodGet, path, nil).expect(http.StatusOK)
	}
	fs := e.filesystems()[0]
	for _, w := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, "/api/v1/filesystems", map[string]any{"name": "more", "region": "us-east-1"}},
		{http.MethodDelete, "/api/v1/filesystems/" + fs.ID, nil},
		{http.MethodPut, "/api/v1/firewall-rules", map[string]any{"data": []any{}}},
		{http.MethodPatch, "/api/v1/firewall-rulesets/global", map[string]any{"rules": []any{}}},
		{http.MethodPost, "/api/v1/instance-operations/launch", launchBody(nil)},
	} {
		r := e.doAs(ro, w.method, w.path, w.body).expectError(http.StatusForbidden, models.CodeInsufficientScope)
		if r.message() == "" {
			t.Fatalf("%s %s: no message", w.method, w.path)
		}
	}
	if n := len(e.filesystems()); n != 1 {
		t.Fatalf("%d filesystems after a read-only key's writes, want 1", n)
	}
	var rules []models.FirewallRule
	e.do(http.MethodGet, "/api/v1/firewall-rules", nil).data(&rules)
	if len(rules) != 1 {
		t.Fatalf("the read-only key changed the inbound rules: %v", rules)
	}
	// A full key (the default) still writes.
	e.doAs(e.newKey(models.CreateAPIKeyInput{Name: "ci"}), http.MethodPost, "/api/v1/filesystems",
		map[string]any{"name": "more", "region": "us-east-1"}).expect(http.StatusOK)
}

func TestExpiredKeyIsRefusedLikeARevokedOne(t *testing.T) {
	e := newEnv(t)
	key := e.newKey(models.CreateAPIKeyInput{Name: "temp", Expires: "1d"})
	e.doAs(key, http.MethodGet, "/api/v1/filesystems", nil).expect(http.StatusOK)
	e.clock.Advance(24*time.Hour - time.Second)
	e.doAs(key, http.MethodGet, "/api/v1/filesystems", nil).expect(http.StatusOK)
	e.clock.Advance(time.Second)
	e.doAs(key, http.MethodGet, "/api/v1/filesystems", nil).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
	e.doAs(key, http.MethodPost, "/api/v1/filesystems", datasets).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
	// Keys without an expiry are unaffected.
	e.do(http.MethodGet, "/api/v1/filesystems", nil).expect(http.StatusOK)
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != 0 {
		t.Fatalf("%d filesystem events from an expired key", n)
	}
}

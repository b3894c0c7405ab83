package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// memberWrite is one write of each kind a member may make and a viewer may
// not, with a body that makes it succeed for a member.
type memberWrite struct {
	method, path string
	body         func(i int) any
}

var memberWrites = []memberWrite{
	{http.MethodPost, "/api/v1/filesystems", func(i int) any { return map[string]any{"name": fmt.Sprint("fs", i), "region": "us-east-1"} }},
	{http.MethodPost, "/api/v1/ssh-keys", func(i int) any { return map[string]any{"name": fmt.Sprint("key", i)} }},
	{http.MethodPut, "/api/v1/firewall-rules", func(int) any { return map[string]any{"data": []any{}} }},
	{http.MethodPatch, "/api/v1/firewall-rulesets/global", func(int) any { return map[string]any{"rules": []any{}} }},
	{http.MethodPost, "/api/v1/firewall-rulesets", func(i int) any {
		return map[string]any{"name": fmt.Sprint("rs", i), "region": "us-east-1", "rules": []any{}}
	}},
	{http.MethodPost, "/api/v1/fabric", func(i int) any { return map[string]any{"name": fmt.Sprint("fab", i), "region": "us-east-1"} }},
	{http.MethodPost, "/api/v1/tickets", func(int) any {
		return map[string]any{"subject": "help", "description": "please", "type": "service_request"}
	}},
}

var memberReads = []string{"/api/v1/filesystems", "/api/v1/ssh-keys", "/api/v1/firewall-rules",
	"/api/v1/firewall-rulesets", "/api/v1/instances", "/api/v1/tickets", "/api/v1/audit-events"}

// A member's key writes the account's resources; a viewer's (read-only)
// key and a member's full key once its member is demoted to viewer are
// refused every write with 403 global/insufficient-scope, and still read
// everything. The role is the member's at the moment of each request.
func TestAPIKeysActWithTheirMembersRole(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	owner := e.owner.Actor()
	member, memberKey := modelstest.Member(t, e.store, owner, "member@example.com", models.RoleMember)
	_, viewerKey := modelstest.Member(t, e.store, owner, "viewer@example.com", models.RoleViewer)

	for i, w := range memberWrites {
		r := e.doAs(memberKey, w.method, w.path, w.body(i))
		if r.Status >= 300 {
			t.Fatalf("member %s %s: %d %s", w.method, w.path, r.Status, r.Body)
		}
		e.doAs(viewerKey, w.method, w.path, w.body(i+100)).expectError(http.StatusForbidden, models.CodeInsufficientScope)
	}
	if _, err := e.store.SetMemberRole(ctx, owner, models.MemberInput{Member: member.Email, Role: models.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	before := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem")
	for i, w := range memberWrites {
		r := e.doAs(memberKey, w.method, w.path, w.body(i+200)).expectError(http.StatusForbidden, models.CodeInsufficientScope)
		if !strings.Contains(r.message(), "viewer") {
			t.Fatalf("%s %s: the refusal does not name the role: %q", w.method, w.path, r.message())
		}
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != before {
		t.Fatalf("a demoted member's key wrote: %d filesystem events, want %d", n, before)
	}
	for _, path := range memberReads {
		e.doAs(memberKey, http.MethodGet, path, nil).expect(http.StatusOK)
		e.doAs(viewerKey, http.MethodGet, path, nil).expect(http.StatusOK)
	}
	// Removed, the member's key is unknown.
	if _, err := e.store.RemoveMember(ctx, owner, models.MemberInput{Member: member.Email}); err != nil {
		t.Fatal(err)
	}
	e.doAs(memberKey, http.MethodGet, "/api/v1/filesystems", nil).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
}

// The API's audit events name the member who acted in actor_lrn, and the
// key in request_api_key_lrn.
func TestAuditEventsNameTheMember(t *testing.T) {
	e := newEnv(t)
	member, memberKey := modelstest.Member(t, e.store, e.owner.Actor(), "member@example.com", models.RoleMember)
	e.doAs(memberKey, http.MethodPost, "/api/v1/filesystems", datasets).expect(http.StatusOK)
	var events []struct {
		ResourceName     string  `json:"resource_name"`
		ActorLRN         *string `json:"actor_lrn"`
		RequestAPIKeyLRN *string `json:"request_api_key_lrn"`
	}
	e.do(http.MethodGet, "/api/v1/audit-events?resource_type=cloud.filesystem", nil).data(&events)
	if len(events) != 1 || events[0].ActorLRN == nil || *events[0].ActorLRN != "lrn:cloud:user:"+member.UserID ||
		events[0].RequestAPIKeyLRN == nil {
		t.Fatalf("filesystem events: %+v", events)
	}
}

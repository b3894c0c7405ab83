package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

var datasets = map[string]any{"name": "datasets", "region": "us-east-1"}

func expectReplayed(t *testing.T, first, retry *response) {
	t.Helper()
	if first.Header.Get(api.HeaderIdempotentReplayed) != "" {
		t.Fatalf("the first answer says it is replayed")
	}
	if retry.Header.Get(api.HeaderIdempotentReplayed) != "true" {
		t.Fatalf("retry: %s %q, want true", api.HeaderIdempotentReplayed, retry.Header.Get(api.HeaderIdempotentReplayed))
	}
	if retry.Status != first.Status || !bytes.Equal(retry.Body, first.Body) ||
		retry.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
		t.Fatalf("replay %d %q %s\nfirst  %d %q %s", retry.Status, retry.Header.Get("Content-Type"), retry.Body,
			first.Status, first.Header.Get("Content-Type"), first.Body)
	}
}

func TestIdempotentRetryReplaysTheFirstAnswerAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	first := e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "create-datasets").expect(http.StatusOK)
	e.clock.Advance(time.Hour)
	retry := e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "create-datasets")
	expectReplayed(t, first, retry)
	if n := len(e.filesystems()); n != 1 {
		t.Fatalf("%d filesystems after a retry, want 1", n)
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != 1 {
		t.Fatalf("%d audit events after a retry, want 1", n)
	}

	// An error answer is stored and replayed too: it is the request's answer.
	refused := e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "again").
		expectError(http.StatusBadRequest, models.CodeDuplicate)
	expectReplayed(t, refused, e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "again"))

	// Without a key, today's behaviour: the same request runs again.
	e.do(http.MethodPost, "/api/v1/filesystems", datasets).expectError(http.StatusBadRequest, models.CodeDuplicate)
}

func TestIdempotentLaunchLaunchesOnceAndItsReplaySpendsNoLaunchBudget(t *testing.T) {
	clock := modelstest.NewClock()
	launch, err := ratelimit.NewMemory(ratelimit.Quota{Rate: time.Hour, Burst: 1}, ratelimit.WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withLimits(api.Limits{Launch: launch}))
	e.addSSHKey(e.key, "key")
	path := "/api/v1/instance-operations/launch"
	first := e.doWith(http.MethodPost, path, launchBody(nil), "Idempotency-Key", "launch-1").expect(http.StatusOK)
	for range 3 {
		expectReplayed(t, first, e.doWith(http.MethodPost, path, launchBody(nil), "Idempotency-Key", "launch-1"))
	}
	var list []apiInstance
	e.do(http.MethodGet, "/api/v1/instances", nil).expect(http.StatusOK).data(&list)
	if len(list) != 1 {
		t.Fatalf("%d instances after retries of one launch, want 1", len(list))
	}
	// A launch refused by the launch limit is not stored: its retry is
	// refused again (not replayed), and runs once the budget is back.
	for range 2 {
		r := e.doWith(http.MethodPost, path, launchBody(nil), "Idempotency-Key", "launch-2").
			expectError(http.StatusTooManyRequests, models.CodeRateLimited)
		if r.Header.Get(api.HeaderIdempotentReplayed) != "" {
			t.Fatalf("a 429 was replayed")
		}
	}
	clock.Advance(time.Hour)
	e.doWith(http.MethodPost, path, launchBody(nil), "Idempotency-Key", "launch-2").expect(http.StatusOK)
}

func TestIdempotencyKeyUsedForAnotherRequestIsRefused(t *testing.T) {
	e := newEnv(t)
	e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "k1").expect(http.StatusOK)
	for _, tc := range []struct {
		name, method, path string
		body               any
	}{
		{"another body", http.MethodPost, "/api/v1/filesystems", map[string]any{"name": "other", "region": "us-east-1"}},
		{"another path", http.MethodPost, "/api/v1/ssh-keys", map[string]any{"name": "datasets"}},
		{"another method", http.MethodDelete, "/api/v1/filesystems/" + models.NewID(), nil},
	} {
		r := e.doWith(tc.method, tc.path, tc.body, "Idempotency-Key", "k1").expectError(http.StatusBadRequest, models.CodeInvalidParameters)
		if !strings.Contains(r.message(), "another request") {
			t.Errorf("%s: message %q does not say the key was used for another request", tc.name, r.message())
		}
	}
	if n := len(e.filesystems()); n != 1 {
		t.Fatalf("%d filesystems, want 1", n)
	}
}

func TestIdempotencyKeyMustBePrintableASCII(t *testing.T) {
	e := newEnv(t)
	for _, key := range []string{strings.Repeat("k", 256), "clé"} {
		r := e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", key).
			expectError(http.StatusBadRequest, models.CodeInvalidParameters)
		if !strings.Contains(r.message(), "Idempotency-Key") {
			t.Errorf("message %q does not name the header", r.message())
		}
	}
	e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", strings.Repeat("k", 255)+"").expect(http.StatusOK)
	// Reads ignore it.
	e.doWith(http.MethodGet, "/api/v1/filesystems", nil, "Idempotency-Key", "clé").expect(http.StatusOK)
}

// A key that is blank (sent empty, or only spaces and tabs) is refused
// rather than ignored: the client asked for a safe retry and would not get
// one.
func TestBlankIdempotencyKeyIsRefused(t *testing.T) {
	e := newEnv(t)
	for _, key := range []string{"", " ", "   ", "\t", " \t "} {
		r := e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", key).
			expectError(http.StatusBadRequest, models.CodeInvalidParameters)
		if !strings.Contains(r.message(), "Idempotency-Key") {
			t.Errorf("key %q: message %q does not name the header", key, r.message())
		}
	}
	if n := len(e.filesystems()); n != 0 {
		t.Fatalf("%d filesystems created by requests with a blank key, want 0", n)
	}
	// Spaces around a key are not part of it.
	first := e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", " padded ").expect(http.StatusOK)
	expectReplayed(t, first, e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "padded"))
}

// requestFingerprint is the contract's fingerprint of an owner's request
// without a query: SHA-256 of the role, its method, path and body.
func requestFingerprint(method, path, body string) string {
	sum := sha256.Sum256([]byte("Role: owner\n" + method + "\n" + path + "?\n" + body))
	return hex.EncodeToString(sum[:])
}

func TestRetryWhileTheFirstRunsIsAConflictUntilItsLeaseEnds(t *testing.T) {
	e := newEnv(t)
	body := `{"name": "datasets", "region": "us-east-1"}`
	// A request holds the key (its process may have died since).
	a, err := e.store.Authenticate(context.Background(), e.key)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.store.ClaimIdempotencyKey(context.Background(), e.accountID(), models.IdempotencyRowKey(a, "busy"),
		requestFingerprint(http.MethodPost, "/api/v1/filesystems", body), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	e.doWith(http.MethodPost, "/api/v1/filesystems", body, "Idempotency-Key", "busy").expectError(http.StatusConflict, models.CodeInternal)
	if n := len(e.filesystems()); n != 0 {
		t.Fatalf("%d filesystems while the first request runs", n)
	}
	// Past its lease the claim is stale: the retry runs.
	e.clock.Advance(time.Minute + time.Second)
	first := e.doWith(http.MethodPost, "/api/v1/filesystems", body, "Idempotency-Key", "busy").expect(http.StatusOK)
	expectReplayed(t, first, e.doWith(http.MethodPost, "/api/v1/filesystems", body, "Idempotency-Key", "busy"))
}

func TestStoredAnswersExpireAfterADay(t *testing.T) {
	e := newEnv(t)
	e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "k").expect(http.StatusOK)
	e.clock.Advance(models.IdempotencyTTL - time.Second)
	other := map[string]any{"name": "other", "region": "us-east-1"}
	e.doWith(http.MethodPost, "/api/v1/filesystems", other, "Idempotency-Key", "k").expectError(http.StatusBadRequest, models.CodeInvalidParameters)
	e.clock.Advance(time.Second)
	// Expired: the key is free for a new request, before and after pruning.
	e.doWith(http.MethodPost, "/api/v1/filesystems", other, "Idempotency-Key", "k").expect(http.StatusOK)
	e.clock.Advance(models.IdempotencyTTL)
	if n, err := e.store.PruneIdempotencyKeys(context.Background()); err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	e.doWith(http.MethodPost, "/api/v1/filesystems", map[string]any{"name": "third", "region": "us-east-1"}, "Idempotency-Key", "k").
		expect(http.StatusOK)
}

func TestAccountsUseTheSameKeyIndependently(t *testing.T) {
	e := newEnv(t)
	_, otherKey := modelstest.Owner(t, e.store, "other@example.com")
	a := e.doWith(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "shared").expect(http.StatusOK)
	req := e.request(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "shared")
	req.Header.Set("Authorization", "Bearer "+otherKey)
	b := e.send(req).expect(http.StatusOK)
	if b.Header.Get(api.HeaderIdempotentReplayed) != "" || bytes.Equal(a.Body, b.Body) {
		t.Fatalf("the other account got the first account's answer: %s", b.Body)
	}
}

// Many copies of one request with one key at once: exactly one runs; the
// others get its answer or are told it is still running.
func TestParallelRequestsWithOneKeyCreateOneObject(t *testing.T) {
	e := newEnv(t)
	requests := make([]*http.Request, 20)
	for i := range requests {
		requests[i] = e.request(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", "once")
	}
	var firsts, replays, running int
	for _, r := range e.sendAll(requests) {
		switch {
		case r.Status == http.StatusOK && r.Header.Get(api.HeaderIdempotentReplayed) == "":
			firsts++
		case r.Status == http.StatusOK:
			replays++
		case r.Status == http.StatusConflict && r.code() == string(models.CodeInternal):
			running++
		default:
			t.Errorf("unexpected answer %d %s", r.Status, r.Body)
		}
	}
	if firsts != 1 || replays+running != 19 {
		t.Fatalf("%d first answers, %d replays, %d still running on %s; want 1 first", firsts, replays, running, modelstest.Backend())
	}
	if n := len(e.filesystems()); n != 1 {
		t.Fatalf("%d filesystems, want 1", n)
	}
	if n := modelstest.AuditCount(t, e.store, e.accountID(), "filesystem"); n != 1 {
		t.Fatalf("%d audit events, want 1", n)
	}
}

// If-Match is part of the request a key names: a key first used with a
// stale ETag (412) is not replayed for the current one, which would leave
// the write undone behind an answer about another precondition; it is a
// key reused for another request. The same If-Match again is a replay.
func TestIdempotencyKeyRemembersIfMatch(t *testing.T) {
	e := newEnv(t)
	path := "/api/v1/firewall-rules"
	tag := e.do(http.MethodGet, path, nil).expect(http.StatusOK).Header.Get("ETag")
	body := map[string]any{"data": httpsRule(1001)}
	stale := e.doWith(http.MethodPut, path, body, "If-Match", `"999"`, "Idempotency-Key", "k-1").
		expectError(http.StatusPreconditionFailed, models.CodePreconditionFailed)
	expectReplayed(t, stale, e.doWith(http.MethodPut, path, body, "If-Match", `"999"`, "Idempotency-Key", "k-1"))
	r := e.doWith(http.MethodPut, path, body, "If-Match", tag, "Idempotency-Key", "k-1").
		expectError(http.StatusBadRequest, models.CodeInvalidParameters)
	if !strings.Contains(r.message(), "another request") {
		t.Errorf("message %q does not say the key was used for another request", r.message())
	}
	if after := e.do(http.MethodGet, path, nil).Header.Get("ETag"); after != tag {
		t.Fatalf("ETag %s after refusals, want %s unchanged", after, tag)
	}
	e.doWith(http.MethodPut, path, body, "If-Match", tag, "Idempotency-Key", "k-2").expect(http.StatusOK)
}

// Members share an account but not its stored answers: a key names one
// credential's request. Another member sending the same Idempotency-Key
// runs their own request through their own role check; a viewer is
// refused, and the owner's answer (its generated private key above all)
// is never replayed to them.
func TestIdempotentAnswersAreNotSharedAcrossMembers(t *testing.T) {
	e := newEnv(t)
	owner := e.owner.Actor()
	_, memberKey := modelstest.Member(t, e.store, owner, "member@example.com", models.RoleMember)
	viewer, _ := modelstest.Member(t, e.store, owner, "viewer@example.com", models.RoleMember)
	_, viewerFullKey, err := e.store.CreateAPIKey(context.Background(), viewer, models.CreateAPIKeyInput{Name: "full"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.SetMemberRole(context.Background(), owner, models.MemberInput{Member: viewer.Email, Role: models.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"name": "ci"}
	first := e.doWith(http.MethodPost, "/api/v1/ssh-keys", body, "Idempotency-Key", "ci-ssh").expect(http.StatusOK)
	if !strings.Contains(string(first.Body), "PRIVATE KEY") {
		t.Fatalf("no private key: %s", first.Body)
	}
	as := func(secret string) *response {
		req := e.request(http.MethodPost, "/api/v1/ssh-keys", body, "Idempotency-Key", "ci-ssh")
		req.Header.Set("Authorization", "Bearer "+secret)
		return e.send(req)
	}
	// The viewer's full-scope key (made while a member) meets the domain's
	// role check, not the owner's stored answer.
	r := as(viewerFullKey).expectError(http.StatusForbidden, models.CodeInsufficientScope)
	if r.Header.Get(api.HeaderIdempotentReplayed) != "" || strings.Contains(string(r.Body), "PRIVATE KEY") {
		t.Fatalf("a viewer got the owner's answer: %s", r.Body)
	}
	// The owner's real request later is not answered with the viewer's 403.
	e.doWith(http.MethodPost, "/api/v1/ssh-keys", map[string]any{"name": "ci"}, "Idempotency-Key", "ci-ssh").expect(http.StatusOK)
	// A member runs their own request: it is theirs, not a replay; the
	// name is taken, so the domain says so.
	r = as(memberKey).expectError(http.StatusBadRequest, models.CodeInvalidParameters)
	if r.Header.Get(api.HeaderIdempotentReplayed) != "" {
		t.Fatalf("the member's request was answered from the owner's")
	}
}

// A generated private key is shown once: the stored answer keeps the key
// without it, so a retry learns the key was made but never reads the
// secret back from the database.
func TestIdempotentReplayOfAGeneratedKeyHoldsNoPrivateKey(t *testing.T) {
	e := newEnv(t)
	body := map[string]any{"name": "ci"}
	first := e.doWith(http.MethodPost, "/api/v1/ssh-keys", body, "Idempotency-Key", "gen").expect(http.StatusOK)
	if !strings.Contains(string(first.Body), "PRIVATE KEY") {
		t.Fatalf("no private key: %s", first.Body)
	}
	retry := e.doWith(http.MethodPost, "/api/v1/ssh-keys", body, "Idempotency-Key", "gen").expect(http.StatusOK)
	if retry.Header.Get(api.HeaderIdempotentReplayed) != "true" || strings.Contains(string(retry.Body), "private_key") ||
		!strings.Contains(string(retry.Body), `"name":"ci"`) {
		t.Fatalf("replay: %s %s", retry.Header.Get(api.HeaderIdempotentReplayed), retry.Body)
	}
	var stored []byte
	if err := e.store.DB().Raw("SELECT response_body FROM idempotency_keys").Row().Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(stored), "PRIVATE KEY") {
		t.Fatalf("the private key is stored: %s", stored)
	}
}

// A member demoted after their request was answered does not get that
// answer replayed: the role is part of the request, so the retry is
// another request (400), and a fresh key meets the role check.
func TestIdempotentReplayIsRefusedAfterARoleChange(t *testing.T) {
	e := newEnv(t)
	owner := e.owner.Actor()
	m, _ := modelstest.Member(t, e.store, owner, "member@example.com", models.RoleMember)
	_, full, err := e.store.CreateAPIKey(context.Background(), m, models.CreateAPIKeyInput{Name: "full"})
	if err != nil {
		t.Fatal(err)
	}
	send := func(key string) *response {
		req := e.request(http.MethodPost, "/api/v1/filesystems", datasets, "Idempotency-Key", key)
		req.Header.Set("Authorization", "Bearer "+full)
		return e.send(req)
	}
	send("fs").expect(http.StatusOK)
	if _, err := e.store.SetMemberRole(context.Background(), owner, models.MemberInput{Member: m.Email, Role: models.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	var last *response
	testserver.Eventually(t, 2*time.Second, func() bool {
		last = send("fs")
		return last.Status == http.StatusBadRequest && last.code() == string(models.CodeInvalidParameters)
	}, "the demoted member's retry refused as another request")
	send("fs-2").expectError(http.StatusForbidden, models.CodeInsufficientScope)
}

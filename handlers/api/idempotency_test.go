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

// requestFingerprint is the contract's fingerprint of a request without a
// query: SHA-256 of its method, path and body.
func requestFingerprint(method, path, body string) string {
	sum := sha256.Sum256([]byte(method + "\n" + path + "?\n" + body))
	return hex.EncodeToString(sum[:])
}

func TestRetryWhileTheFirstRunsIsAConflictUntilItsLeaseEnds(t *testing.T) {
	e := newEnv(t)
	body := `{"name": "datasets", "region": "us-east-1"}`
	// A request holds the key (its process may have died since).
	_, err := e.store.ClaimIdempotencyKey(context.Background(), e.accountID(), "busy",
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

package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func writeLimit(burst int) envOption {
	return withLimits(func(c *modelstest.Clock) web.Limits { return web.Limits{Writes: perMinute(c, burst)} })
}

// The dashboard is no way around the API's rate limit: a signed-in
// account's writes, whatever the form, share one budget. A refused plain
// form gets the 429 page; a refused htmx request leaves the form as typed
// and says why in the flash region. Nothing is made either way.
func TestDashboardWritesAreRateLimited(t *testing.T) {
	e := newEnv(t, writeLimit(3))
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/api-keys").expect(http.StatusOK)
	b.post("/api-keys", url.Values{"name": {"one"}}).expect(http.StatusCreated)
	b.post("/api-keys", url.Values{"name": {"two"}}).expect(http.StatusCreated)
	b.post("/ssh-keys/generate", url.Values{"name": {"three"}}).redirectsTo("/ssh-keys")

	res := b.post("/api-keys", url.Values{"name": {"four"}}).expect(http.StatusTooManyRequests).
		contains("Too many changes in a short time, so this one was not made. Wait 60 seconds, then try again.")
	if res.Header.Get("Retry-After") == "" || res.Header.Get("RateLimit-Limit") != "3" {
		t.Fatalf("refusal headers %v", res.Header)
	}
	b.htmx = true
	res = b.post("/api-keys", url.Values{"name": {"five"}}).expect(http.StatusTooManyRequests)
	if res.Header.Get("HX-Retarget") != "#flash" || !strings.Contains(res.Body, "Too many changes") || strings.Contains(res.Body, "<form") {
		t.Fatalf("htmx refusal %v:\n%s", res.Header, res.Body)
	}
	b.htmx = false
	if keys, _ := e.store.APIKeys(context.Background(), ada.Actor()); len(keys) != 2 {
		t.Fatalf("%d API keys after refusals, want 2", len(keys))
	}

	// Another account has its own budget; forged requests spend nothing;
	// signing out is never refused.
	bob := e.signedIn("bob@example.com")
	bob.get("/api-keys")
	for range 3 {
		bob.post("/api-keys", url.Values{"name": {"x"}, "csrf_token": {strings.Repeat("0", 64)}}).expect(http.StatusForbidden)
	}
	bob.post("/api-keys", url.Values{"name": {"bob"}}).expect(http.StatusCreated)
	b.get("/api-keys").expect(http.StatusOK)
	b.post("/sign-out", nil).redirectsTo("/sign-in?notice=signed-out")

	e.clock.Advance(time.Minute)
	again := e.signedIn("ada@example.com")
	again.get("/api-keys")
	again.post("/api-keys", url.Values{"name": {"later"}}).expect(http.StatusCreated)
}

// A second session of the same account shares its budget: the limit is
// per account, not per browser.
func TestDashboardWriteLimitIsPerAccount(t *testing.T) {
	e := newEnv(t, writeLimit(1))
	e.owner("ada@example.com")
	first, second := e.signedIn("ada@example.com"), e.signedIn("ada@example.com")
	first.get("/api-keys")
	second.get("/api-keys")
	first.post("/api-keys", url.Values{"name": {"one"}}).expect(http.StatusCreated)
	second.post("/api-keys", url.Values{"name": {"two"}}).expect(http.StatusTooManyRequests)
}

// Many writes at once from one account get exactly the burst through,
// however they race.
func TestDashboardWriteLimitUnderConcurrency(t *testing.T) {
	const burst, clients = 4, 20
	e := newEnv(t, writeLimit(burst))
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/api-keys")
	form := url.Values{"name": {"racer"}, "csrf_token": {b.csrf}}.Encode()
	statuses := make(chan int, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest(http.MethodPost, "/api-keys", strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(&http.Cookie{Name: "cloudplane_session", Value: b.cookies["cloudplane_session"]})
			res, err := e.app.Test(req, 30_000)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			statuses <- res.StatusCode
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[http.StatusCreated] != burst || count[http.StatusTooManyRequests] != clients-burst {
		t.Fatalf("statuses %v, want %d created and the rest 429", count, burst)
	}
	if keys, _ := e.store.APIKeys(context.Background(), ada.Actor()); len(keys) != burst {
		t.Fatalf("%d keys, want %d", len(keys), burst)
	}
}

// The account the session acts on pays for its writes, whichever member
// makes them: members share its budget (they are no way around it), and a
// member working in another account spends nothing of their own.
// Switching accounts is never refused.
func TestDashboardWriteLimitIsChargedToTheActingAccount(t *testing.T) {
	e := newEnv(t, writeLimit(2))
	ada := e.owner("ada@example.com")
	bob := e.member(ada, "bob@example.com", models.RoleMember)
	a := e.signedIn("ada@example.com")
	b := e.signedIn("bob@example.com")
	b.get("/")
	b.switchTo(*ada.AccountID)
	a.get("/ssh-keys")
	b.get("/ssh-keys")
	a.post("/ssh-keys/generate", url.Values{"name": {"one"}}).redirectsTo("/ssh-keys")
	a.post("/ssh-keys/generate", url.Values{"name": {"two"}}).redirectsTo("/ssh-keys")
	b.post("/ssh-keys/generate", url.Values{"name": {"three"}}).expect(http.StatusTooManyRequests)
	b.switchTo(*bob.AccountID)
	b.get("/ssh-keys")
	b.post("/ssh-keys/generate", url.Values{"name": {"mine"}}).redirectsTo("/ssh-keys")
	b.post("/ssh-keys/generate", url.Values{"name": {"mine2"}}).redirectsTo("/ssh-keys")
	if keys, _ := e.store.SSHKeys(context.Background(), ada.Actor()); len(keys) != 2 {
		t.Fatalf("%d SSH keys in ada's account, want 2", len(keys))
	}
}

package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

var secretInPage = regexp.MustCompile(`id="new-key-secret" class="secret">(cpk_[0-9a-f]{8}_[0-9a-f]{64})<`)

func TestAPIKeysEmptyState(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	e.signedIn("ada@example.com").get("/api-keys").expect(http.StatusOK).
		contains("<h1>API keys</h1>", "No API keys yet", "Generate a key above", `aria-current="page"`)
}

// A key generated in the dashboard is shown once, works against the API at
// once, and is recorded as the user's doing.
func TestGenerateAPIKey(t *testing.T) {
	e := newEnv(t)
	owner := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.clock.Advance(time.Second)
	res := b.post("/api-keys", url.Values{"name": {"CI deploys"}}).expect(http.StatusCreated).
		contains("Your new key “CI deploys”", "Copy it now.", "only time the secret is shown", "data-copy=\"new-key-secret\"")
	m := secretInPage.FindStringSubmatch(res.Body)
	if m == nil {
		t.Fatalf("no secret in page:\n%s", res.Body)
	}
	secret := m[1]
	// Once beside its Copy button, once in the "Try it" export line.
	if strings.Count(res.Body, secret) != 2 {
		t.Fatalf("the secret appears %d times, want 2", strings.Count(res.Body, secret))
	}
	res.contains(`<code>` + secret[:12] + `</code>`) // the prefix in the table
	if status := e.apiStatus(secret, "/api/v1/regions"); status != http.StatusOK {
		t.Fatalf("new key against the API: %d", status)
	}
	b.get("/api-keys").expect(http.StatusOK).contains("CI deploys").lacks(secret)

	ev := e.events(owner, 1)[0]
	if ev.ResourceName != "api_key" || ev.Action != "created" || *ev.ActorLRN != "lrn:cloud:user:"+owner.ID ||
		ev.RequestAPIKeyLRN != nil || ev.AdditionalDetails.Map()["name"] != "CI deploys" {
		t.Fatalf("event %+v", ev)
	}
}

func TestGenerateAPIKeyShowsErrorsBesideTheField(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	long := strings.Repeat("n", 65)
	b.post("/api-keys", url.Values{"name": {long}}).expect(http.StatusUnprocessableEntity).
		fieldError("name", "Name must be at most 64 characters.").
		contains(`value="`+long+`"`, `aria-invalid="true"`).lacks("Your new key")
	b.htmx = true
	b.post("/api-keys", url.Values{"name": {long}}).expect(http.StatusUnprocessableEntity).
		fieldError("name", "Name must be at most 64 characters.").lacks("<!doctype html>")
}

func TestRevokeAPIKey(t *testing.T) {
	e := newEnv(t)
	owner := e.owner("ada@example.com")
	key, secret := e.apiKey(owner, "old laptop")
	b := e.signedIn("ada@example.com")
	confirm := "/api-keys/" + key.ID + "/revoke"
	b.get(confirm).expect(http.StatusOK).
		contains("<!doctype html>", "Revoke “old laptop”?", `action="`+confirm+`"`, `href="/api-keys"`)

	// With script the confirmation is the dialog's content alone.
	b.htmx = true
	b.header.Set("HX-Target", "dialog")
	b.get(confirm).expect(http.StatusOK).
		contains("Revoke “old laptop”?", "data-dialog-close").lacks("<!doctype html>", "<title>", "site-header")
	b.header.Del("HX-Target")

	e.clock.Advance(time.Second)
	b.post(confirm, nil).expect(http.StatusNoContent).redirectsTo("/api-keys")
	b.htmx = false
	b.get("/api-keys").expect(http.StatusOK).
		contains("API key “old laptop” revoked.", "No API keys yet")
	if status := e.apiStatus(secret, "/api/v1/regions"); status != http.StatusUnauthorized {
		t.Fatalf("revoked key against the API: %d", status)
	}
	if ev := e.events(owner, 1)[0]; ev.Action != "deleted" || *ev.ActorLRN != "lrn:cloud:user:"+owner.ID {
		t.Fatalf("event %+v", ev)
	}
	b.post(confirm, nil).expect(http.StatusNotFound)
}

// An owner reaches only their own account's keys: another account's key is
// not found, and stays working.
func TestAPIKeysOfAnotherAccount(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	key, secret := e.apiKey(ada, "ada's")
	bob := e.signedIn("bob@example.com")
	bob.get("/api-keys").expect(http.StatusOK).lacks("ada's")
	bob.get("/api-keys/" + key.ID + "/revoke").expect(http.StatusNotFound).lacks("ada's")
	bob.post("/api-keys/"+key.ID+"/revoke", nil).expect(http.StatusNotFound)
	bob.post("/api-keys/"+key.Prefix+"/revoke", nil).expect(http.StatusNotFound)
	if status := e.apiStatus(secret, "/api/v1/regions"); status != http.StatusOK {
		t.Fatalf("ada's key after bob's attempt: %d", status)
	}
}

// Support staff see no API keys: no link, no page, no action.
func TestSupportStaffSeeNoAPIKeys(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	key, _ := e.apiKey(ada, "ada's")
	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	s.get("/").expect(http.StatusOK).contains("What you can do", "support tickets").
		lacks(`href="/api-keys"`, "Recent activity")
	s.get("/api-keys").expect(http.StatusForbidden).lacks("ada's")
	s.post("/api-keys", url.Values{"name": {"mine"}}).expect(http.StatusForbidden)
	s.get("/api-keys/" + key.ID + "/revoke").expect(http.StatusForbidden).lacks("ada's")
	s.post("/api-keys/"+key.ID+"/revoke", nil).expect(http.StatusForbidden)
	s.get("/account").expect(http.StatusOK).contains("Support staff").lacks("Account ID")
}

// htmx gets the same content as a fragment: title and header out of band,
// no document around it. History restores get the whole page.
func TestFragments(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	full := b.get("/api-keys").expect(http.StatusOK)
	b.htmx = true
	frag := b.get("/api-keys").expect(http.StatusOK).
		contains("<title>API keys · cloudplane</title>", `id="site-header" class="site-header" hx-swap-oob="true"`,
			"<h1>API keys</h1>").lacks("<!doctype html>", "<main", "<head>")
	main := full.Body[strings.Index(full.Body, `<div id="flash"`):strings.Index(full.Body, "</main>")]
	if !strings.Contains(frag.Body, main) {
		t.Fatalf("fragment content differs from the page's main:\n%s\n---\n%s", main, frag.Body)
	}
	b.header.Set("HX-History-Restore-Request", "true")
	b.get("/api-keys").expect(http.StatusOK).contains("<!doctype html>")
}

// A key generated read-only and expiring reads the API, cannot write, and
// is refused once it expires; the list shows its access and expiry.
func TestGenerateReadOnlyExpiringAPIKey(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/api-keys").expect(http.StatusOK).
		contains(`name="scope"`, `<option value="read_only">Read-only</option>`, `<option value="90d">In 90 days</option>`,
			`name="expires_on" type="date"`)
	res := b.post("/api-keys", url.Values{"name": {"dashboards"}, "scope": {"read_only"}, "expires": {"30d"}}).
		expect(http.StatusCreated)
	secret := secretInPage.FindStringSubmatch(res.Body)[1]
	res.contains("Read-only")
	if status := e.apiStatus(secret, "/api/v1/regions"); status != http.StatusOK {
		t.Fatalf("read-only key reading: %d", status)
	}
	req, _ := http.NewRequest(http.MethodPost, "/api/v1/ssh-keys", strings.NewReader(`{"name": "k"}`))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	if res, err := e.app.Test(req, -1); err != nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("read-only key writing: %v %v, want 403", res, err)
	}
	// Sessions end after 12 hours idle: each look at the list signs in anew.
	e.clock.Advance(30*24*time.Hour - 7*24*time.Hour)
	e.signedIn("ada@example.com").get("/api-keys").expect(http.StatusOK).contains("Expires within 7 days")
	e.clock.Advance(7 * 24 * time.Hour)
	if status := e.apiStatus(secret, "/api/v1/regions"); status != http.StatusUnauthorized {
		t.Fatalf("expired key: %d, want 401", status)
	}
	e.signedIn("ada@example.com").get("/api-keys").expect(http.StatusOK).contains("Expired: requests with it are refused")
}

func TestGenerateAPIKeyOnADate(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.post("/api-keys", url.Values{"name": {"x"}, "expires": {"date"}}).expect(http.StatusUnprocessableEntity).
		fieldError("expires_on", "Choose the date the key expires on.").lacks("Your new key")
	past := e.clock.Now().AddDate(0, 0, -1).Format(time.DateOnly)
	b.post("/api-keys", url.Values{"name": {"x"}, "expires": {"date"}, "expires_on": {past}}).expect(http.StatusUnprocessableEntity).
		fieldError("expires_on", "Expiry date must be in the future.").lacks("Your new key")
	on := e.clock.Now().AddDate(0, 2, 0).Format(time.DateOnly)
	b.post("/api-keys", url.Values{"name": {"x"}, "expires": {"date"}, "expires_on": {on}}).expect(http.StatusCreated)
}

// Keys unused for 90 days are pointed out.
func TestUnusedAPIKeyIsPointedOut(t *testing.T) {
	e := newEnv(t)
	owner := e.owner("ada@example.com")
	e.apiKey(owner, "forgotten")
	e.signedIn("ada@example.com").get("/api-keys").expect(http.StatusOK).contains("forgotten").lacks("Unused for 90 days")
	e.clock.Advance(90 * 24 * time.Hour)
	e.signedIn("ada@example.com").get("/api-keys").expect(http.StatusOK).contains("Unused for 90 days")
}

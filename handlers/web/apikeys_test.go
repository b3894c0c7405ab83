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
	if strings.Count(res.Body, secret) != 1 {
		t.Fatal("the secret appears more than once")
	}
	res.contains(`<code>` + secret[:12] + `</code>`) // the prefix in the table
	if status := e.apiStatus(secret, "/api/v1/regions"); status != http.StatusOK {
		t.Fatalf("new key against the API: %d", status)
	}
	b.get("/api-keys").expect(http.StatusOK).contains("CI deploys").lacks(secret)

	ev := e.events(owner, 1)[0]
	if ev.ResourceName != "api_key" || ev.Action != "created" || *ev.ActorLRN != "lrn:cloud:user:"+owner.ID ||
		ev.RequestAPIKeyLRN != nil || ev.AdditionalDetails["name"] != "CI deploys" {
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

package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"cloudplane/models"
)

// The search page works without script: a GET form whose results link to
// each object's page, never another account's.
func TestSearchPage(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	bob := e.owner("bob@example.com")
	fs := e.filesystem(ada, "train-data", "us-east-1")
	e.filesystem(bob, "train-bob", "us-east-1")
	tk := e.ticket(ada, "Training stalls")
	b := e.signedIn("ada@example.com")
	b.get("/").expect(http.StatusOK).contains(`action="/search"`, `id="site-search"`, `name="q"`, `aria-keyshortcuts="/ Control+K"`)
	b.get("/search?q="+url.QueryEscape("TRAIN")).expect(http.StatusOK).
		contains("<h1>Search</h1>", "Results for “TRAIN”", ">Filesystems</h3>", `href="/filesystems#filesystem-`+fs.ID+`"`,
			"train-data", ">Tickets</h3>", `href="/tickets/`+tk.ID+`"`, "Training stalls").
		lacks("train-bob")
	b.get("/search?q=nothing").expect(http.StatusOK).contains("Nothing found for “nothing”.")
	b.get("/search?q="+strings.Repeat("x", 101)).expect(http.StatusUnprocessableEntity).
		fieldError("q", "Search terms must be at most 100 characters.")
}

// As one types, htmx asks for the results alone, to show below the field.
func TestSearchSuggestions(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	b := e.signedIn("ada@example.com")
	b.header = http.Header{"Hx-Request": {"true"}, "Hx-Target": {"search-suggest"}}
	b.get("/search?q=lap").expect(http.StatusOK).contains(`data-query="lap"`, ">SSH keys</h3>", "laptop").
		lacks("<h1>", "site-header")
}

// Support staff find accounts by a member's email and tickets anywhere.
func TestSearchSupport(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	tk := e.ticket(ada, "GPU missing")
	e.user("help@example.com", models.RoleSupport)
	b := e.signedIn("help@example.com")
	b.get("/search?q=ada@").expect(http.StatusOK).contains(">Accounts</h3>", `href="/accounts/`+*ada.AccountID+`"`)
	b.get("/search?q=gpu").expect(http.StatusOK).contains(`href="/tickets/`+tk.ID+`"`, "account "+*ada.AccountID)
	// Each link leads to the object's page.
	b.get("/tickets/" + tk.ID).expect(http.StatusOK).contains("GPU missing")
	b.get("/accounts/" + *ada.AccountID).expect(http.StatusOK).contains("ada@example.com")
}

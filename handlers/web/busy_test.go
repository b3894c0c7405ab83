package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"cloudplane/models/database"
	"cloudplane/models/modelstest"
)

// A form sent while another process holds the database's write lock
// until the wait runs out comes back as typed, with "Nothing was saved;
// try again." and 503 with Retry-After, not the 409 error page of a lost
// race; sent again once the lock is free, it succeeds.
func TestFormBehindAHeldLockComesBackToSendAgain(t *testing.T) {
	dsn := modelstest.DSN(t)
	appDSN := dsn
	if database.IsPostgres(dsn) {
		appDSN += "&lock_timeout=300" // milliseconds, a runtime parameter pgx passes on
	}
	e := newEnv(t, atDSN(appDSN))
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	var release func()
	if database.IsPostgres(dsn) {
		release = modelstest.HoldRowLock(t, dsn, "accounts", *ada.AccountID)
	} else {
		release = modelstest.HoldWriteLockFromProcess(t, dsn)
	}
	form := url.Values{"name": {"training-data"}, "region": {"us-west-1"}}
	b.post("/filesystems", form).expect(http.StatusServiceUnavailable).
		hasHeader("Retry-After", "5").
		contains("Nothing was saved; try again.", `value="training-data"`).
		lacks("Conflict", "concurrent request")

	b.htmx = true // a boosted form gets the same answer to swap in
	b.post("/filesystems", form).expect(http.StatusServiceUnavailable).
		contains("Nothing was saved; try again.", `value="training-data"`)
	b.htmx = false

	release()
	b.post("/filesystems", form).expect(http.StatusSeeOther).redirectsTo("/filesystems")
	b.get("/filesystems").expect(http.StatusOK).contains(`<td class="cell-strong">training-data</td>`)
}

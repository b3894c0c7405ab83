package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"cloudplane/models/modelstest"
)

// A form sent while another process holds the database's write lock
// until the wait runs out comes back as typed, with "Nothing was saved;
// try again." and 503 with Retry-After, not the 409 error page of a lost
// race; sent again once the lock is free, it succeeds.
func TestFormBehindAHeldLockComesBackToSendAgain(t *testing.T) {
	dsn := modelstest.DSN(t)
	e := newEnv(t, atDSN(modelstest.LockWaitDSN(dsn)))
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	release := modelstest.HoldAccountWrites(t, dsn, *ada.AccountID)
	form := url.Values{"name": {"training-data"}, "region": {"us-west-1"}}
	b.post("/filesystems", form).expect(http.StatusServiceUnavailable).
		hasHeader("Retry-After", "5").
		contains("Nothing was saved; try again.", `value="training-data"`).
		lacks("Conflict", "concurrent request")

	// (The boosted form, which swaps this answer in, is e2e's TestBusyDatabaseKeepsTheForm.)
	release()
	b.post("/filesystems", form).expect(http.StatusSeeOther).redirectsTo("/filesystems")
	b.get("/filesystems").expect(http.StatusOK).contains(`<td class="cell-strong">training-data</td>`)
}

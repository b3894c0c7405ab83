package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// filesystem creates a filesystem of u's account through the domain.
func (e *env) filesystem(u *models.User, name, region string) *models.FilesystemView {
	e.t.Helper()
	return modelstest.Must[*models.FilesystemView](e.t)(
		e.store.CreateFilesystem(context.Background(), u.Actor(), models.CreateFilesystemInput{Name: name, Region: region}))
}

// updateAccount changes an account as the operator would.
func (e *env) updateAccount(email string, in models.UpdateAccountInput) {
	e.t.Helper()
	modelstest.Must[*models.Account](e.t)(e.store.UpdateAccount(context.Background(), models.OperatorActor, email, in))
}

func TestFilesystemsEmptyState(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	e.signedIn("ada@example.com").get("/filesystems").expect(http.StatusOK).
		contains("<h1>Filesystems</h1>", "No filesystems yet", "Create one above", `href="/filesystems" aria-current="page"`,
			`<option value="us-south-1">us-south-1 · Texas, USA</option>`, `action="/filesystems"`)
}

// A filesystem created in the dashboard is listed with its region, mount
// point, state and creator, and recorded as the user's doing.
func TestCreateFilesystem(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.clock.Advance(time.Second)
	b.post("/filesystems", url.Values{"name": {"training-data"}, "region": {"us-west-1"}}).
		expect(http.StatusSeeOther).redirectsTo("/filesystems")
	b.get("/filesystems").expect(http.StatusOK).
		contains("Filesystem “training-data” created in us-west-1.", `<td class="cell-strong">training-data</td>`,
			"California, USA", `>/lambda/nfs/training-data</code>`, "Not mounted", "ada@example.com",
			`datetime="2026-01-02T03:04:06Z"`).lacks("No filesystems yet")

	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "filesystem" || ev.Action != "created" || *ev.ActorLRN != "lrn:cloud:user:"+ada.ID || ev.RequestAPIKeyLRN != nil {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").expect(http.StatusOK).contains("Filesystem “training-data” created", `href="/filesystems"`)

	// With htmx the redirect is HX-Redirect.
	b.htmx = true
	b.post("/filesystems", url.Values{"name": {"checkpoints"}, "region": {"us-east-1"}}).
		expect(http.StatusNoContent).redirectsTo("/filesystems")
}

// Refused input comes back on the form with the API's messages beside the
// field at fault, or above the form when it is about the account.
func TestCreateFilesystemShowsErrorsBesideTheField(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.filesystem(ada, "taken", "us-east-1")
	b := e.signedIn("ada@example.com")
	cases := []struct {
		name, fsName, region, field, msg string
	}{
		{"no name", "", "us-east-1", "name", "Name is required."},
		{"bad name", "9lives", "us-east-1", "name", "Name must start with a letter and contain only letters, digits and hyphens."},
		{"long name", "a" + strings.Repeat("b", 60), "us-east-1", "name", "Name must be at most 60 characters."},
		{"taken name", "taken", "us-west-1", "name", "Name is already used."},
		{"no region", "data", "", "region", "Region is required."},
		{"unknown region", "data", "mars-1", "region", `Unknown region "mars-1"; see GET /api/v1/regions.`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b.post("/filesystems", url.Values{"name": {tc.fsName}, "region": {tc.region}}).
				expect(http.StatusUnprocessableEntity).fieldError(tc.field, tc.msg).
				contains(`value="`+tc.fsName+`"`, `aria-invalid="true"`, "<!doctype html>")
		})
	}
	b.htmx = true
	b.post("/filesystems", url.Values{"name": {"9lives"}, "region": {"us-east-1"}}).expect(http.StatusUnprocessableEntity).
		fieldError("name", "Name must start with a letter and contain only letters, digits and hyphens.").
		contains(`<option value="us-east-1" selected>`).lacks("<!doctype html>")
	b.htmx = false

	one := 1
	e.updateAccount("ada@example.com", models.UpdateAccountInput{FilesystemQuota: &one})
	b.post("/filesystems", url.Values{"name": {"more"}, "region": {"us-east-1"}}).expect(http.StatusUnprocessableEntity).
		contains("The account has reached its quota of 1 filesystems", `role="alert"`)

	invalid := false
	e.updateAccount("ada@example.com", models.UpdateAccountInput{BillingAddressValid: &invalid})
	b.post("/filesystems", url.Values{"name": {"more"}, "region": {"us-east-1"}}).expect(http.StatusForbidden).
		contains("The account&#39;s billing address is invalid")
	if n := modelstest.AuditCount(t, e.store, *ada.AccountID, "filesystem"); n != 1 {
		t.Fatalf("%d filesystem events, want the one create that worked", n)
	}
}

func TestDeleteFilesystem(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	f := e.filesystem(ada, "scratch", "us-east-1")
	b := e.signedIn("ada@example.com")
	confirm := "/filesystems/" + f.ID + "/delete"
	b.get("/filesystems").expect(http.StatusOK).contains(`hx-get="` + confirm + `"`)
	b.get(confirm).expect(http.StatusOK).
		contains("<!doctype html>", "Delete “scratch”?", "Everything stored on it is deleted", `action="`+confirm+`"`,
			`href="/filesystems"`, "Delete filesystem")

	b.htmx = true
	b.header.Set("HX-Target", "dialog")
	b.get(confirm).expect(http.StatusOK).contains("Delete “scratch”?", "data-dialog-close").lacks("<!doctype html>", "site-header")
	b.header.Del("HX-Target")

	e.clock.Advance(time.Second)
	b.post(confirm, nil).expect(http.StatusNoContent).redirectsTo("/filesystems")
	b.htmx = false
	b.get("/filesystems").expect(http.StatusOK).contains("Filesystem “scratch” deleted.", "No filesystems yet")
	if ev := e.events(ada, 1)[0]; ev.ResourceName != "filesystem" || ev.Action != "deleted" {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").contains("Filesystem “scratch” deleted")
	b.post(confirm, nil).expect(http.StatusNotFound)
	b.get(confirm).expect(http.StatusNotFound)
}

// A filesystem mounted on a running instance cannot be deleted: the
// confirmation says so instead of asking, and a delete posted anyway is
// refused with the reason above the list.
func TestDeleteFilesystemInUse(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	f := e.filesystem(ada, "datasets", "us-east-1")
	modelstest.Mount(t, e.store, e.running(ada).ID, f.ID, f.MountPoint())
	b := e.signedIn("ada@example.com")
	confirm := "/filesystems/" + f.ID + "/delete"

	b.get("/filesystems").expect(http.StatusOK).contains(`badge-info">In use`)
	b.get(confirm).expect(http.StatusOK).
		contains("“datasets” is in use", "Terminate the instances that mount it", `href="/filesystems"`, "Back to filesystems").
		lacks(`action="` + confirm + `"`)
	b.header.Set("HX-Target", "dialog")
	b.get(confirm).expect(http.StatusOK).contains("“datasets” is in use", "data-dialog-close", ">Close<").lacks("<form")
	b.header.Del("HX-Target")

	b.post(confirm, nil).expect(http.StatusUnprocessableEntity).
		contains(`class="flash flash-danger"`, "Filesystem &#34;datasets&#34; is mounted on a running instance.",
			"Terminate the instances that mount it, then delete it.", `<td class="cell-strong">datasets</td>`)
	b.htmx = true
	b.post(confirm, nil).expect(http.StatusUnprocessableEntity).contains("is mounted on a running instance").lacks("<!doctype html>")
	if n := modelstest.AuditCount(t, e.store, *ada.AccountID, "filesystem"); n != 1 {
		t.Fatalf("%d filesystem events after refused deletes", n)
	}
}

// An owner reaches only their own account's filesystems: another's are
// not found, and stay.
func TestFilesystemsOfAnotherAccount(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	f := e.filesystem(ada, "adas-data", "us-east-1")
	bob := e.signedIn("bob@example.com")
	bob.get("/filesystems").expect(http.StatusOK).lacks("adas-data")
	bob.get("/filesystems/" + f.ID + "/delete").expect(http.StatusNotFound).lacks("adas-data")
	bob.post("/filesystems/"+f.ID+"/delete", nil).expect(http.StatusNotFound).lacks("adas-data")
	bob.post("/filesystems/adas-data/delete", nil).expect(http.StatusNotFound)
	// Bob may use the same name in his own account.
	bob.post("/filesystems", url.Values{"name": {"adas-data"}, "region": {"us-east-1"}}).expect(http.StatusSeeOther)
	e.signedIn("ada@example.com").get("/filesystems").expect(http.StatusOK).contains("adas-data").lacks("bob@example.com")
}

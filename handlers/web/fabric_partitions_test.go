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

// partition creates a fabric partition of u's account through the domain.
func (e *env) partition(u *models.User, name, region string) *models.FabricPartition {
	e.t.Helper()
	return modelstest.Must[*models.FabricPartition](e.t)(e.store.CreateFabricPartition(context.Background(), u.Actor(),
		models.CreateFabricPartitionInput{Name: name, Region: region}))
}

func TestFabricPartitionsEmptyState(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.signedIn("ada@example.com").get("/fabric").expect(http.StatusOK).
		contains("<h1>Fabric partitions</h1>", "No fabric partitions yet", `href="/fabric" aria-current="page"`,
			"default workspace ("+*ada.AccountID+")", "0 of 10 partitions used",
			`<option value="us-south-1">us-south-1 · Texas, USA</option>`, `action="/fabric"`)
}

// A partition created in the dashboard is listed with its region and
// recorded as the user's doing.
func TestCreateFabricPartition(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.clock.Advance(time.Second)
	b.post("/fabric", url.Values{"name": {"training-one"}, "region": {"us-west-1"}}).
		expect(http.StatusSeeOther).redirectsTo("/fabric")
	b.get("/fabric").expect(http.StatusOK).
		contains("Fabric partition “training-one” created in us-west-1.", `<td class="cell-strong">training-one</td>`,
			"California, USA", `datetime="2026-01-02T03:04:06Z"`, "1 of 10 partitions used").lacks("No fabric partitions yet")

	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "fabric_partition" || ev.Action != "created" || *ev.ActorLRN != "lrn:cloud:user:"+ada.ID || ev.RequestAPIKeyLRN != nil {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").expect(http.StatusOK).contains("Fabric partition “training-one” created")
	b.get("/audit-events").expect(http.StatusOK).contains(`<option value="cloud.fabric_partition">Fabric partitions</option>`)
	b.get("/audit-events?resource_type=cloud.fabric_partition").expect(http.StatusOK).contains(`Fabric partition <a href="/fabric">“training-one”</a> created`)

	b.htmx = true
	b.post("/fabric", url.Values{"name": {"checkpoints"}, "region": {"us-east-1"}}).
		expect(http.StatusNoContent).redirectsTo("/fabric")
}

// Refused input comes back on the form with the domain's messages beside
// the field at fault, or above the form for the quota.
func TestCreateFabricPartitionShowsErrorsBesideTheField(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.partition(ada, "taken", "us-east-1")
	b := e.signedIn("ada@example.com")
	badName := "Name must start with a lower-case letter or digit and contain only lower-case letters, digits and hyphens."
	cases := []struct {
		name, pName, region, field, msg string
	}{
		{"no name", "", "us-east-1", "name", "Name is required."},
		{"upper case", "Training", "us-east-1", "name", badName},
		{"long name", "a" + strings.Repeat("b", 32), "us-east-1", "name", "Name must be at most 32 characters."},
		{"taken name", "taken", "us-east-1", "name", "Name is already used in this region."},
		{"no region", "data", "", "region", "Region is required."},
		{"unknown region", "data", "mars-1", "region", `Unknown region "mars-1"; see GET /api/v1/regions.`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b.post("/fabric", url.Values{"name": {tc.pName}, "region": {tc.region}}).
				expect(http.StatusUnprocessableEntity).fieldError(tc.field, tc.msg).
				contains(`value="`+tc.pName+`"`, `aria-invalid="true"`, "<!doctype html>")
		})
	}
	one := 1
	e.updateAccount("ada@example.com", models.UpdateAccountInput{FabricPartitionQuota: &one})
	b.post("/fabric", url.Values{"name": {"more"}, "region": {"us-west-1"}}).expect(http.StatusUnprocessableEntity).
		contains("The account has reached its quota of 1 fabric partitions", `role="alert"`, "1 of 1 partitions used")
	if n := modelstest.AuditCount(t, e.store, *ada.AccountID, "fabric_partition"); n != 1 {
		t.Fatalf("%d fabric_partition events, want the one create", n)
	}
	b.get("/").expect(http.StatusOK).contains(`href="/fabric"`, "Your fabric partitions quota is reached",
		"You have 1 of 1 fabric partitions")
}

func TestRenameFabricPartition(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	p := e.partition(ada, "old-name", "us-east-1")
	e.partition(ada, "taken", "us-east-1")
	b := e.signedIn("ada@example.com")
	form := "/fabric/" + p.ID + "/rename"
	b.get("/fabric").expect(http.StatusOK).contains(`hx-get="` + form + `"`)
	b.get(form).expect(http.StatusOK).
		contains("<!doctype html>", "Rename “old-name”", `action="`+form+`"`, `value="old-name"`, `href="/fabric"`)
	b.header.Set("HX-Target", "dialog")
	b.get(form).expect(http.StatusOK).contains("Rename “old-name”", "data-dialog-close").lacks("<!doctype html>", "site-header")
	b.header.Del("HX-Target")

	b.post(form, url.Values{"new_name": {"taken"}}).expect(http.StatusUnprocessableEntity).
		fieldError("new_name", "New name is already used in this region.").contains(`value="taken"`, "Rename “old-name”")
	b.post(form, url.Values{"new_name": {"Bad"}}).expect(http.StatusUnprocessableEntity).contains(`aria-invalid="true"`)

	e.clock.Advance(time.Second)
	b.post(form, url.Values{"new_name": {"new-name"}}).expect(http.StatusSeeOther).redirectsTo("/fabric")
	b.get("/fabric").expect(http.StatusOK).contains("Fabric partition renamed “new-name”.", `<td class="cell-strong">new-name</td>`).
		lacks(">old-name<")
	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "fabric_partition" || ev.Action != "updated" || ev.AdditionalDetails.Map()["previous_name"] != "old-name" {
		t.Fatalf("event %+v", ev)
	}
	b.get("/").contains("Fabric partition “new-name” renamed")
}

func TestDeleteFabricPartition(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	p := e.partition(ada, "scratch", "us-east-1")
	b := e.signedIn("ada@example.com")
	confirm := "/fabric/" + p.ID + "/delete"
	b.get("/fabric").expect(http.StatusOK).contains(`hx-get="` + confirm + `"`)
	b.get(confirm).expect(http.StatusOK).
		contains("<!doctype html>", "Delete “scratch”?", "This cannot be undone", `action="`+confirm+`"`,
			`href="/fabric"`, "Delete partition")

	b.htmx = true
	b.header.Set("HX-Target", "dialog")
	b.get(confirm).expect(http.StatusOK).contains("Delete “scratch”?", "data-dialog-close").lacks("<!doctype html>", "site-header")
	b.header.Del("HX-Target")

	e.clock.Advance(time.Second)
	b.post(confirm, nil).expect(http.StatusNoContent).redirectsTo("/fabric")
	b.htmx = false
	b.get("/fabric").expect(http.StatusOK).contains("Fabric partition “scratch” deleted.", "No fabric partitions yet")
	if ev := e.events(ada, 1)[0]; ev.ResourceName != "fabric_partition" || ev.Action != "deleted" {
		t.Fatalf("event %+v", ev)
	}
	b.post(confirm, nil).expect(http.StatusNotFound)
	b.get(confirm).expect(http.StatusNotFound)
}

// An owner reaches only their own account's partitions; support staff
// reach none; every form needs the CSRF token.
func TestFabricPartitionsOfAnotherAccount(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	p := e.partition(ada, "adas-part", "us-east-1")
	bob := e.signedIn("bob@example.com")
	bob.get("/fabric").expect(http.StatusOK).lacks("adas-part")
	for _, path := range []string{"/fabric/" + p.ID + "/rename", "/fabric/" + p.ID + "/delete"} {
		bob.get(path).expect(http.StatusNotFound).lacks("adas-part")
		bob.post(path, url.Values{"new_name": {"bobs"}}).expect(http.StatusNotFound).lacks("adas-part")
	}
	bob.post("/fabric/adas-part/delete", nil).expect(http.StatusNotFound)
	bob.post("/fabric", url.Values{"name": {"adas-part"}, "region": {"us-east-1"}}).expect(http.StatusSeeOther)

	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	s.get("/").expect(http.StatusOK).lacks(`href="/fabric"`)
	for _, path := range []string{"/fabric", "/fabric/" + p.ID + "/rename", "/fabric/" + p.ID + "/delete"} {
		s.get(path).expect(http.StatusForbidden).lacks("adas-part")
		s.post(path, url.Values{"name": {"x"}, "new_name": {"x"}, "region": {"us-east-1"}}).expect(http.StatusForbidden)
	}

	a := e.signedIn("ada@example.com")
	for _, path := range []string{"/fabric", "/fabric/" + p.ID + "/rename", "/fabric/" + p.ID + "/delete"} {
		a.post(path, url.Values{"csrf_token": {strings.Repeat("0", 64)}, "name": {"changed"}, "new_name": {"changed"}, "region": {"us-east-1"}}).
			expect(http.StatusForbidden).contains("This form has expired")
	}
	a.get("/fabric").expect(http.StatusOK).contains("adas-part").lacks("changed")
	if n := modelstest.AuditCount(t, e.store, *ada.AccountID, "fabric_partition"); n != 1 {
		t.Fatalf("%d events in ada's account, want her one create", n)
	}
}

package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"cloudplane/models"
)

func TestOverview(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.clock.Advance(time.Second)
	e.apiKey(ada, "deploy")
	e.clock.Advance(time.Second)
	b := e.signedIn("ada@example.com")
	b.get("/").expect(http.StatusOK).
		contains("<h1>Overview</h1>", `<p class="tile-count">1`, "of 25", "of 50", `href="/api-keys"`,
			"API key “deploy” created", "User created: “ada@example.com”",
													`datetime="2026-01-02T03:04:06Z"`).
		lacks("Your account is inactive", "Close to your", "Signed in to the dashboard") // personal: the platform's log
}

func TestOverviewWarnsAboutTheAccount(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	inactive, invalid, zero := models.AccountInactive, false, 0
	_, err := e.store.UpdateAccount(context.Background(), models.OperatorActor, "ada@example.com",
		models.UpdateAccountInput{Status: &inactive, BillingAddressValid: &invalid, FilesystemQuota: &zero})
	if err != nil {
		t.Fatal(err)
	}
	b := e.signedIn("ada@example.com")
	b.get("/").expect(http.StatusOK).
		contains("Your account is inactive", "Your billing address is invalid", "Your filesystems quota is reached",
			"You have 0 of 0 filesystems, so new ones are refused", `<span class="tile-quota">of 0</span>`,
			"The operator deactivated your account, marked your billing address invalid and lowered your filesystem quota to 0",
			// Each warning leads to where it is fixed.
			`<a href="/tickets/new">Ask support to reactivate it`, `<a href="/tickets/new">Ask support to correct it`,
			`<a href="/tickets/new">Ask support for a higher quota`).
		lacks("firewall rulesets quota")
	b.get("/account").contains("Inactive")
}

func TestOverviewWarnsBeforeAQuotaIsReached(t *testing.T) {
	e := newEnv(t)
	bob := e.owner("bob@example.com")
	five := 5
	if _, err := e.store.UpdateAccount(context.Background(), models.OperatorActor, "bob@example.com",
		models.UpdateAccountInput{FilesystemQuota: &five}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if _, err := e.store.CreateFilesystem(context.Background(), bob.Actor(), models.CreateFilesystemInput{Name: name, Region: "us-east-1"}); err != nil {
			t.Fatal(err)
		}
	}
	b := e.signedIn("bob@example.com")
	b.get("/").expect(http.StatusOK).lacks("filesystems quota")
	if _, err := e.store.CreateFilesystem(context.Background(), bob.Actor(), models.CreateFilesystemInput{Name: "d", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	b.get("/").expect(http.StatusOK).contains("Close to your filesystems quota", "You have 4 of 5 filesystems.",
		`<a href="/filesystems">See your filesystems`)
}

// Support must give a reason for a change, and the owner reads it with
// what changed instead of "Account changed by the operator".
func TestSupportAccountChangeReasonReachesTheOwner(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.user("help@example.com", models.RoleSupport)
	id := *ada.AccountID
	if _, err := e.store.CreateFilesystem(context.Background(), ada.Actor(), models.CreateFilesystemInput{Name: "data", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	s := e.signedIn("help@example.com")
	s.get("/accounts/"+id).expect(http.StatusOK).
		contains("1 of 25 filesystems", "0 of 50 rulesets", "of 25 filesystems", `name="fabric_partition_quota"`, `name="reason"`,
			`href="/tickets?account=`+id+`"`, `href="/webhook-deliveries?account=`+id+`"`)
	s.post("/accounts/"+id, url.Values{"filesystem_quota": {"50"}, "fabric_partition_quota": {"12"}}).
		expect(http.StatusUnprocessableEntity).fieldError("reason", "Say why, in words the account’s owners will read.").
		contains(`value="50"`, `value="12"`)
	a, _ := e.store.Account(context.Background(), id)
	if a.FilesystemQuota != 25 {
		t.Fatalf("a change without a reason was saved: %+v", a)
	}
	s.post("/accounts/"+id, url.Values{"filesystem_quota": {"50"}, "fabric_partition_quota": {"12"}, "reason": {"Ticket #12: the migration"}}).
		redirectsTo("/accounts/" + id)
	s.get("/accounts/"+id).contains("1 of 50 filesystems", "0 of 12 fabric partitions")

	e.clock.Advance(time.Second)
	e.signedIn("ada@example.com").get("/").expect(http.StatusOK).
		contains("Support raised your filesystem quota to 50 and raised your fabric partition quota to 12: Ticket #12: the migration").
		lacks("Account changed by the operator")
}

// The first-run checklist links every step, ticks the done ones and is
// gone once all four are done.
func TestOverviewFirstRunChecklist(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/").expect(http.StatusOK).contains("Get started", "0 of 4 done", `<a href="/api-keys">Generate an API key</a>`,
		`<a href="/ssh-keys">Add an SSH key</a>`, `<a href="/instances/launch">Launch your first instance</a>`,
		`<a href="/webhook">Set up a webhook endpoint</a>`).lacks("checklist-done")
	e.apiKey(ada, "deploy")
	b.get("/").contains("1 of 4 done", `<li class="checklist-step checklist-done">`)
	e.sshKey(ada, "laptop")
	id := e.launch(ada, "first", "us-east-1", "gpu_1x_a10", "laptop")
	if _, err := e.store.TerminateInstances(context.Background(), ada.Actor(), models.InstanceIDsInput{InstanceIDs: []string{id}}); err != nil {
		t.Fatal(err)
	}
	b.get("/").contains("3 of 4 done") // a terminated first instance still counts
	e.webhook(ada, "https://hooks.example.com/")
	b.get("/").expect(http.StatusOK).lacks("Get started", "checklist")
}

package web_test

import (
	"context"
	"net/http"
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
			"You have 0 of 0 filesystems, so new ones are refused", `<span class="tile-quota">of 0</span>`, "Account changed by the operator").
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
	b.get("/").expect(http.StatusOK).contains("Close to your filesystems quota", "You have 4 of 5 filesystems.")
}

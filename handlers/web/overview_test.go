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
			"Signed in to the dashboard", "API key created: “deploy”", "User created: “ada@example.com”",
			`datetime="2026-01-02T03:04:07Z"`).
		lacks("Your account is inactive", "Close to your")
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
		contains("Your account is inactive", "Your billing address is invalid", "Close to your filesystems quota",
			"You have 0 of 0 filesystems", "Account changed by the operator").
		lacks("Close to your firewall rulesets quota")
	b.get("/account").contains("Inactive")
}

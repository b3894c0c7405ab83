package e2e

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
)

// An owner sets a budget in dollars (a third decimal is refused beside
// the field) with "stop new launches"; once the month's spend reaches it
// the overview's banner says so and leads to the budget page, and a launch
// is refused with the budget's code while the instance keeps running.
func TestBudgetFormAndBanner(t *testing.T) {
	s := need(t)
	o := s.newOwner(t)
	key := s.apiKey(t, o)
	b := s.newTab(t)
	b.signIn(o)
	b.NavTo("Budget")
	b.WaitText("main h1", "^Budget$")
	b.Fill("main", "^Monthly budget", "0.015")
	b.Press("main", "^Save budget$")
	b.WantFieldError("main", "^Monthly budget", "at most two decimals")
	b.Shot("budget with three decimals")
	b.Fill("main", "^Monthly budget", "0.01")
	b.Do("tick stop new launches", chromedp.Click(b.Find("main form", "control", "^Stop new launches")))
	b.Press("main", "^Save budget$")
	b.WaitText("#flash", "Budget saved")
	b.WaitText("#budget-amount", regexp.QuoteMeta("$0.01"))
	b.WaitText("#budget-stop", "^Refused$")

	// A gpu_1x_a10 costs 1 cent in its first minute, which begins at once.
	s.api(t, key, http.MethodPost, "/ssh-keys", map[string]string{"name": "budget-key"}).ok(t, http.StatusOK, nil)
	launch := map[string]any{"region_name": "us-east-1", "instance_type_name": "gpu_1x_a10", "ssh_key_names": []string{"budget-key"}}
	var launched struct {
		InstanceIDs []string `json:"instance_ids"`
	}
	s.api(t, key, http.MethodPost, "/instance-operations/launch", launch).ok(t, http.StatusOK, &launched)
	b.Open("/")
	b.WaitText("main", "reached 100% of the budget")
	b.WaitText("main", "New launches are refused")
	if !b.Has("main .alert", "clickable", "^See your usage") {
		b.Fail("the banner has no link to the usage page")
	}
	b.Shot("overview with the budget banner")
	b.Press("main .alert", "^Review the budget")
	b.WaitText("main h1", "^Budget$")

	if c := s.api(t, key, http.MethodPost, "/instance-operations/launch", launch); c.status != http.StatusForbidden ||
		c.errorCode() != "global/budget-exceeded" {
		t.Fatalf("a launch past the budget answered %d %s", c.status, c.body)
	}
	var inst struct{ Status string }
	s.api(t, key, http.MethodGet, "/instances/"+launched.InstanceIDs[0], nil).ok(t, http.StatusOK, &inst)
	if inst.Status == "terminating" || inst.Status == "terminated" {
		t.Fatalf("the running instance is %s", inst.Status)
	}
}

package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"cloudplane/e2e/browser"
)

// An owner with a running instance sees this month's spend and forecast
// on the overview, the month drawn as SVG bars on the usage page (reached
// from the nav), and the launch form's price for type × quantity beside
// the Launch button, updated as they change.
func TestUsageOverviewAndLaunchPrice(t *testing.T) {
	s := need(t)
	o, b := s.onPage(t, "^Overview$|^Home$")
	key := s.apiKey(t, o)
	s.api(t, key, http.MethodPost, "/ssh-keys", map[string]string{"name": "usage-key"}).ok(t, http.StatusOK, nil)
	s.api(t, key, http.MethodPost, "/instance-operations/launch", map[string]any{"region_name": "us-east-1",
		"instance_type_name": "gpu_1x_a10", "ssh_key_names": []string{"usage-key"}, "name": "usage-box"}).ok(t, http.StatusOK, nil)

	// A started minute at 75 cents an hour is a cent; the forecast runs it
	// to the month's end.
	b.Open("/")
	b.WaitText("#overview-spend", `Spent in \w+ \(UTC\)`)
	b.WaitText("#overview-spend", `\$0\.0[1-9]`)
	b.WaitText("#overview-spend", `Forecast \$[0-9,]+\.\d\d by month end`)
	b.Shot("overview with month spend")

	b.NavTo("^Usage$")
	b.WaitText("main h1", "^Usage$")
	b.WaitText("#usage-forecast", `\$[0-9,]+\.\d\d`)
	b.WaitText("main", "usage-box")
	b.WaitText("main", "UTC")
	if bars := b.Try(`String(document.querySelectorAll("main svg.delivery-chart-svg rect").length)`); bars == "" || bars == "0" {
		b.Fail("the usage page draws no day bars")
	}
	if !b.Has("main", "clickable", "^Set a budget$") {
		b.Fail("the usage page has no link to set a budget")
	}
	b.Shot("usage page")

	b.Open("/instances/launch")
	b.WaitText("#launch-price", "Choose an instance type")
	form := b.Try(fmt.Sprintf("formOf(%s)", browser.JS(string(b.Find("main", "control", "^region")))))
	if form == "" {
		b.Fail("the region control is not in a form")
	}
	// htmx attaches a swapped-in element's listeners only once it has
	// settled (20 ms, far longer on a loaded machine): a quantity typed
	// in between went unheard while the summary replaced its listening
	// element. A long settle makes that window certain.
	var settle float64
	if err := b.EvalJS("htmx.config.defaultSettleDelay = 2000", &settle); err != nil {
		b.Fail("lengthen htmx's settle: %v", err)
	}
	b.Choose(form, "instance type", "gpu_1x_a10$")
	b.WaitText("#launch-price", `1 × gpu_1x_a10: \$0\.75 / hour`)
	b.Fill(form, "^quantity", "3")
	b.WaitText("#launch-price", `3 × gpu_1x_a10: \$2\.25 / hour · \$1,642\.50 / month \(730 h\)`)
	b.Shot("launch form price summary")
}

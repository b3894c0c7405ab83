package handlers

import (
	"os"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"cloudplane/models/modelstest"
)

// dashboardDoc is the page list a newcomer reads; the test below keeps it
// and the route table in step.
const dashboardDoc = "../docs/dashboard.md"

// TestDashboardDocNamesEveryPage fails when a GET route of the dashboard
// (its last handler is in handlers/web) is missing from docs/dashboard.md,
// or when that page names a route the table does not serve. Routes are
// written there as registered (`/tickets/:id`), in the first cell of a
// table row.
func TestDashboardDocNamesEveryPage(t *testing.T) {
	served := dashboardPages(t)
	raw, err := os.ReadFile(dashboardDoc)
	if err != nil {
		t.Fatal(err)
	}
	documented := documentedRoutes(string(raw))
	if len(documented) == 0 {
		t.Fatalf("%s names no route in a table's first column", dashboardDoc)
	}
	for _, path := range served {
		if !slices.Contains(documented, path) {
			t.Errorf("dashboard page GET %s is served but not in %s", path, dashboardDoc)
		}
	}
	for _, path := range documented {
		if !slices.Contains(served, path) {
			t.Errorf("%s names %s, which the dashboard does not serve (GET)", dashboardDoc, path)
		}
	}
}

// dashboardPages lists the paths of the GET routes whose handler is the
// dashboard's, as handlers.New registers them.
func dashboardPages(t *testing.T) []string {
	app := New(Config{Store: modelstest.Open(t)})
	var paths []string
	for _, r := range app.GetRoutes(true) {
		if r.Method != "GET" || len(r.Handlers) == 0 {
			continue
		}
		last := r.Handlers[len(r.Handlers)-1]
		name := runtime.FuncForPC(reflect.ValueOf(last).Pointer()).Name()
		if strings.HasPrefix(name, "cloudplane/handlers/web.") && !slices.Contains(paths, r.Path) {
			paths = append(paths, r.Path)
		}
	}
	if len(paths) == 0 {
		t.Fatal("no GET route of handlers/web found: has the dashboard moved?")
	}
	return paths
}

var (
	tableRow  = regexp.MustCompile(`(?m)^\|([^|\n]*)\|`)
	routeSpan = regexp.MustCompile("`(/[^`\\s]*)`")
)

// documentedRoutes returns the backquoted paths in the first cell of every
// table row of doc.
func documentedRoutes(doc string) []string {
	var paths []string
	for _, row := range tableRow.FindAllStringSubmatch(doc, -1) {
		for _, m := range routeSpan.FindAllStringSubmatch(row[1], -1) {
			paths = append(paths, m[1])
		}
	}
	return paths
}

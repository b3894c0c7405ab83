package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"cloudplane/e2e/browser"
)

// An instance launched from the dashboard boots (the server is started
// with a 2 s boot time), and terminating it asks first.
func TestInstanceLaunchAndTerminate(t *testing.T) {
	s := need(t)
	o, b := s.onPage(t, "^Instances$")

	// A launch needs an SSH key; the keys page is not what this tests.
	key := s.apiKey(t, o)
	s.api(t, key, http.MethodPost, "/ssh-keys", map[string]string{"name": "e2e-key"}).ok(t, http.StatusOK, nil)
	b.Open("/instances")
	b.Shot("instances empty")

	if !b.Has("main", "control", "^region") {
		b.Press("main", "^launch")
	}
	form := b.Try(fmt.Sprintf("formOf(%s)", browser.JS(string(b.Find("main", "control", "^region")))))
	if form == "" {
		b.Fail("the region control is not in a form")
	}
	b.Choose(form, "instance type", "gpu_1x_a10$")
	b.Choose(form, "region", "^us-east-1$")
	b.Choose(form, "ssh key", "^e2e-key$")
	b.Fill(form, "^(instance )?name", "e2e-box")
	b.Shot("launch form")
	b.Press(form, "^launch")
	b.WaitText("#flash", "e2e-box|launch")
	b.RowWith("e2e-box")
	b.Shot("instance launched")
	id := instanceID(t, s, key, "e2e-box")

	b.ReloadUntil("the instance is active",
		`(row => !!row && /active|running/i.test(document.querySelector(row).innerText))(rowWith("e2e-box"))`)
	b.Shot("instance active")

	b.confirmRowAction("e2e-box", "^terminate", "e2e-box", "^terminate", "e2e-box|terminat")
	b.Shot("instance terminated")

	var got struct{ Status string }
	s.api(t, key, http.MethodGet, "/instances/"+id, nil).ok(t, http.StatusOK, &got)
	if got.Status != "terminating" && got.Status != "terminated" {
		t.Errorf("the API says e2e-box is %s after terminating it", got.Status)
	}
}

// instanceID finds the id of the account's instance with the name.
func instanceID(t *testing.T, s *suite, key, name string) string {
	t.Helper()
	var list []struct{ ID, Name string }
	s.api(t, key, http.MethodGet, "/instances", nil).ok(t, http.StatusOK, &list)
	for _, i := range list {
		if i.Name == name {
			return i.ID
		}
	}
	t.Fatalf("the API lists no instance named %s: %+v", name, list)
	return ""
}

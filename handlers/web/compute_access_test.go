package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/views"
)

// Support staff see no instances or SSH keys: no links, no pages, no
// actions, whatever the id. (Their audit log is the platform's.)
func TestSupportStaffSeeNoComputePages(t *testing.T) {
	e := newEnv(t)
	ada, id := e.ownerWithInstance("ada@example.com", "adas-box")
	k := e.sshKey(ada, "adas-key")
	e.user("help@example.com", models.RoleSupport)
	s := e.signedIn("help@example.com")
	s.get("/").expect(http.StatusOK).lacks(`href="/instances"`, `href="/ssh-keys"`)
	for _, path := range []string{"/instances", "/instances/launch", "/instances/" + id, "/instances/" + id + "/terminate",
		"/instances/" + id + "/restart", "/ssh-keys", "/ssh-keys/" + k.ID + "/delete"} {
		s.get(path).expect(http.StatusForbidden).lacks("adas-box", "adas-key")
	}
	for _, path := range []string{"/instances", "/instances/" + id + "/terminate", "/instances/" + id + "/restart",
		"/ssh-keys", "/ssh-keys/generate", "/ssh-keys/" + k.ID + "/delete"} {
		s.post(path, url.Values{"name": {"mine"}, "public_key": {edKey}}).expect(http.StatusForbidden)
	}
	if d := e.instance(ada, id); d.Status != models.InstanceBooting {
		t.Fatalf("ada's instance is %s", d.Status)
	}
}

// Every action of these pages needs the CSRF token; nothing changes
// without it.
func TestComputeActionsNeedTheCSRFToken(t *testing.T) {
	e := newEnv(t)
	ada, id := e.ownerWithInstance("ada@example.com", "box")
	k := e.sshKey(ada, "keep")
	e.clock.Advance(bootTime)
	b := e.signedIn("ada@example.com")
	posts := []struct {
		path string
		form url.Values
	}{
		{"/instances", launchForm("region_name", "us-east-1", "instance_type_name", "gpu_1x_a10", "ssh_key_names", "keep")},
		{"/instances/" + id + "/terminate", nil},
		{"/instances/" + id + "/restart", nil},
		{"/ssh-keys", url.Values{"name": {"sneaky"}, "public_key": {edKey}}},
		{"/ssh-keys/generate", url.Values{"name": {"sneaky"}}},
		{"/ssh-keys/" + k.ID + "/delete", nil},
	}
	for _, p := range posts {
		for _, token := range []string{"" /* missing */, strings.Repeat("0", 64) /* wrong */} {
			form := url.Values{"csrf_token": {token}}
			for k, v := range p.form {
				form[k] = v
			}
			b.post(p.path, form).expect(http.StatusForbidden).contains("This form has expired")
		}
	}
	if d := e.instance(ada, id); d.Status != models.InstanceActive {
		t.Fatalf("instance is %s", d.Status)
	}
	b.get("/instances").expect(http.StatusOK).contains(">box</a>").lacks("Unnamed instance")
	b.get("/ssh-keys").expect(http.StatusOK).contains("keep").lacks("sneaky")
}

// The compute pages carry nothing the CSP would block, are never cached,
// and every form carries the token.
func TestComputePagesAreSafe(t *testing.T) {
	e := newEnv(t)
	ada, id := e.ownerWithInstance("ada@example.com", "box")
	k := e.sshKey(ada, "spare")
	b := e.signedIn("ada@example.com")
	pages := map[string]*page{
		"instances": b.get("/instances"), "launch": b.get("/instances/launch"), "instance": b.get("/instances/" + id),
		"terminate": b.get("/instances/" + id + "/terminate"), "keys": b.get("/ssh-keys"),
		"delete key": b.get("/ssh-keys/" + k.ID + "/delete"), "audit": b.get("/audit-events"),
		"generated": func() *page {
			b.post("/ssh-keys/generate", url.Values{"name": {"new"}}).redirectsTo("/ssh-keys")
			return b.get("/ssh-keys").contains("PRIVATE KEY")
		}(),
	}
	for name, p := range pages {
		if inlineScript.MatchString(p.Body) || eventHandler.MatchString(p.Body) || styleAttr.MatchString(p.Body) {
			t.Errorf("%s: inline script, handler or style in\n%s", name, p.Body)
		}
		if p.Header.Get("Cache-Control") != "no-store" || !strings.Contains(p.Header.Get("Vary"), "HX-Request") {
			t.Errorf("%s: caching headers %v", name, p.Header)
		}
		if forms, tokens := strings.Count(p.Body, `<form method="post"`), strings.Count(p.Body, `name="csrf_token"`); forms != tokens {
			t.Errorf("%s: %d post forms, %d tokens", name, forms, tokens)
		}
	}
}

// The overview links the compute pages and words their events.
func TestOverviewLinksComputePages(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	id := e.launch(ada, "", "us-east-1", "gpu_1x_a10", "laptop")
	e.clock.Advance(bootTime)
	if _, err := e.store.TerminateInstances(t.Context(), ada.Actor(), models.InstanceIDsInput{InstanceIDs: []string{id}}); err != nil {
		t.Fatal(err)
	}
	e.launch(ada, "named", "us-east-1", "gpu_1x_a10", "laptop")
	b := e.signedIn("ada@example.com")
	b.get("/").expect(http.StatusOK).
		contains(`href="/instances">Manage`, `href="/ssh-keys">Manage`, `href="/audit-events">See the whole audit log`,
			"SSH key “laptop” added", "Instance "+views.ShortID(id)+" launched", "Instance "+views.ShortID(id)+" terminated", "Instance “named” launched")
}

package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/views"
)

const (
	edKey    = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICN+lJwsONkwrdsSnQsu1ydUkIuIg5oOC+Eslvmtt60T"
	bootTime = 30 * time.Second // models.DefaultConfig's
	polling  = `hx-trigger="every 2s"`
)

// sshKey adds a public key to u's account, as the API would.
func (e *env) sshKey(u *models.User, name string) *models.SSHKey {
	e.t.Helper()
	pub := edKey
	k, _, err := e.store.CreateSSHKey(context.Background(), u.Actor(), models.CreateSSHKeyInput{Name: name, PublicKey: &pub})
	if err != nil {
		e.t.Fatal(err)
	}
	return k
}

// launch starts one instance in u's account, as the API would.
func (e *env) launch(u *models.User, name, region, typ, key string) string {
	e.t.Helper()
	ids, err := e.store.LaunchInstances(context.Background(), u.Actor(), models.LaunchInstancesInput{
		Name: name, RegionName: region, InstanceTypeName: typ, SSHKeyNames: []string{key}})
	if err != nil {
		e.t.Fatal(err)
	}
	return ids[0]
}

// ownerWithInstance creates an owner with the SSH key "laptop" and one
// instance, booting, launched with it.
func (e *env) ownerWithInstance(email, name string) (*models.User, string) {
	e.t.Helper()
	u := e.owner(email)
	e.sshKey(u, "laptop")
	return u, e.launch(u, name, "us-east-1", "gpu_1x_a10", "laptop")
}

// confirmation checks a confirmation page and, for htmx, the same
// confirmation alone as the dialog's content.
func (b *browser) confirmation(path, title string, texts ...string) {
	b.e.t.Helper()
	b.get(path).expect(http.StatusOK).contains("<!doctype html>", title, `action="`+path+`"`, `name="csrf_token"`).contains(texts...)
	b.htmx = true
	b.header.Set("HX-Target", "dialog")
	defer func() { b.htmx = false; b.header.Del("HX-Target") }()
	b.get(path).expect(http.StatusOK).contains(title, "data-dialog-close", `action="`+path+`"`).
		lacks("<!doctype html>", "<title>", "site-header")
}

func (e *env) instance(u *models.User, id string) *models.InstanceDetail {
	e.t.Helper()
	d, err := e.store.Instance(context.Background(), u.Actor(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

func launchForm(fields ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(fields); i += 2 {
		v.Add(fields[i], fields[i+1])
	}
	return v
}

func TestInstancesEmptyState(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	e.signedIn("ada@example.com").get("/instances").expect(http.StatusOK).
		contains("<h1>Instances</h1>", "No instances running", `href="/instances/launch"`,
			`href="/instances" aria-current="page"`).
		lacks(polling)
}

// The form offers each type with the regions where it has capacity now,
// from the read behind GET /api/v1/instance-types, and the account's own
// keys, filesystems and rulesets.
func TestLaunchFormOffersWhatCanBeLaunched(t *testing.T) {
	e := newEnv(t)
	ada, bob := e.owner("ada@example.com"), e.owner("bob@example.com")
	e.sshKey(ada, "laptop")
	e.sshKey(bob, "bobs-key")
	modelstest.InsertFilesystem(t, e.store, ada, "datasets", "us-east-1")
	modelstest.InsertFilesystem(t, e.store, bob, "bobs-files", "us-east-1")
	rs := modelstest.InsertRuleset(t, e.store, ada, "jupyter", "us-west-1")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch").expect(http.StatusOK).
		contains("<h1>Launch an instance</h1>", `action="/instances"`, `name="csrf_token"`,
			`value="gpu_8x_v100" data-regions="us-south-1"`, "8x Tesla V100 (16 GB)", "$4.40/hr", "92 vCPUs · 448 GiB RAM · 5.8 TiB storage",
			`value="gpu_1x_a10" data-regions="us-east-1 us-west-1 us-south-1 europe-central-1"`,
			`<option value="us-east-1">us-east-1 · Virginia, USA</option>`,
			`<option value="laptop" selected>laptop</option>`, // the only key is chosen already
			`data-region="us-east-1"><input type="checkbox" name="file_system_names" value="datasets"`,
			`data-region="us-west-1"><input type="checkbox" name="firewall_rulesets" value="`+rs+`"`).
		lacks("bobs-key", "bobs-files", "No capacity in any region")

	// The one V100 slot taken, by anyone: the type is offered nowhere.
	e.launch(bob, "", "us-south-1", "gpu_8x_v100", "bobs-key")
	b.get("/instances/launch").expect(http.StatusOK).
		contains(`value="gpu_8x_v100" disabled data-regions=""`, "No capacity in any region right now")
}

// A launch from the form goes through the domain's launch: recorded as
// the user's doing, booting at first, its row asking for itself until it
// is active.
func TestLaunchInstance(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	modelstest.InsertFilesystem(t, e.store, ada, "datasets", "us-east-1")
	rs := modelstest.InsertRuleset(t, e.store, ada, "jupyter", "us-east-1")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch")
	e.clock.Advance(time.Second) // after the sign-in, in the audit log
	b.post("/instances", launchForm("name", "trainer", "region_name", "us-east-1", "instance_type_name", "gpu_1x_h100_pcie",
		"ssh_key_names", "laptop", "file_system_names", "datasets", "firewall_rulesets", rs)).
		expect(http.StatusSeeOther).redirectsTo("/instances")

	list, err := e.store.Instances(context.Background(), ada.Actor())
	if err != nil || len(list) != 1 {
		t.Fatalf("instances %v %v", list, err)
	}
	d := list[0]
	if d.Name != "trainer" || d.Status != models.InstanceBooting || len(d.Mounts) != 1 || d.Mounts[0].FilesystemName != "datasets" ||
		len(d.RulesetIDs) != 1 || d.RulesetIDs[0] != rs || d.SSHKeyNames[0] != "laptop" {
		t.Fatalf("launched %+v", d)
	}
	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "instance" || ev.Action != "launched" || *ev.ActorLRN != "lrn:cloud:user:"+ada.ID || ev.RequestAPIKeyLRN != nil {
		t.Fatalf("event %+v", ev)
	}
	b.get("/instances").expect(http.StatusOK).
		contains("Instance “trainer” is launching.", ">trainer</a>", "Booting", d.IP, "gpu_1x_h100_pcie", polling,
			`href="/instances/`+d.ID+`/terminate"`).
		lacks(`href="/instances/` + d.ID + `/restart"`)
	e.clock.Advance(bootTime)
	b.get("/instances").expect(http.StatusOK).
		contains("Active", `href="/instances/`+d.ID+`/restart"`).lacks(polling, "Booting", "is launching")
}

// What the domain refuses comes back beside the field at fault, with
// the form as it was sent.
func TestLaunchShowsErrorsBesideTheFields(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	modelstest.InsertFilesystem(t, e.store, ada, "east", "us-east-1")
	modelstest.InsertFilesystem(t, e.store, ada, "west", "us-west-1")
	westRS := modelstest.InsertRuleset(t, e.store, ada, "west-rules", "us-west-1")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch")
	base := []string{"region_name", "us-east-1", "instance_type_name", "gpu_1x_a10", "ssh_key_names", "laptop"}
	cases := []struct {
		name   string
		form   url.Values
		field  string
		msg    string
		checks []string
	}{
		{"no SSH key", launchForm("region_name", "us-east-1", "instance_type_name", "gpu_1x_a10", "name", "kept"),
			"ssh_key_names", "SSH key is required.", []string{`value="kept"`}},
		{"no region and no type", launchForm("ssh_key_names", "laptop"),
			"region_name", "Region is required.", []string{`id="field-instance_type_name-error">Instance type is required.<`}},
		{"key deleted meanwhile", launchForm("region_name", "us-east-1", "instance_type_name", "gpu_1x_a10", "ssh_key_names", "gone"),
			"ssh_key_names", "SSH key &#34;gone&#34; does not exist.", nil},
		{"filesystem in another region", launchForm(append(base, "file_system_names", "east", "file_system_names", "west")...),
			"file_system_names", "Filesystem &#34;west&#34; is in us-west-1, not in the launch region us-east-1.",
			[]string{`name="file_system_names" value="east" checked`, `name="file_system_names" value="west" checked`}},
		{"ruleset in another region", launchForm(append(base, "firewall_rulesets", westRS)...),
			"firewall_rulesets", "Ruleset &#34;" + westRS + "&#34; is in us-west-1, not in the launch region us-east-1.", nil},
		{"no capacity there", launchForm("region_name", "us-east-1", "instance_type_name", "gpu_8x_v100", "ssh_key_names", "laptop"),
			"instance_type_name", "Instance type has no capacity left in us-east-1; choose another region or type.",
			[]string{`value="gpu_8x_v100" checked`, `<option value="us-east-1" selected>`}},
		{"name too long", launchForm(append(base, "name", strings.Repeat("n", 65))...),
			"name", "Name must be at most 64 characters, got 65.", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b.post("/instances", tc.form).expect(http.StatusUnprocessableEntity).
				fieldError(tc.field, tc.msg).contains(tc.checks...).contains("<!doctype html>")
		})
	}
	// htmx gets the same form as a fragment.
	b.htmx = true
	b.post("/instances", cases[0].form).expect(http.StatusUnprocessableEntity).
		fieldError("ssh_key_names", "SSH key is required.").lacks("<!doctype html>")
	if list, _ := e.store.Instances(context.Background(), ada.Actor()); len(list) != 0 {
		t.Fatalf("refused launches left %d instances", len(list))
	}
}

// The table asks for itself every two seconds while an instance is
// booting or terminating, and the answer is the table alone; once all
// have settled the answer no longer asks, so the polling stops.
func TestInstancesTablePollsWhileChanging(t *testing.T) {
	e := newEnv(t)
	ada, id := e.ownerWithInstance("ada@example.com", "web")
	b := e.signedIn("ada@example.com")
	b.htmx = true
	b.header.Set("HX-Target", "instances-table")
	poll := func() *page {
		return b.get("/instances").expect(http.StatusOK).lacks("<title>", "site-header", "<h1>", "<!doctype html>")
	}
	res := poll().contains(polling, `hx-get="/instances"`, `hx-swap="outerHTML"`, `hx-target="this"`, `hx-disinherit="*"`, "Booting")
	if !strings.HasPrefix(res.Body, `<div id="instances-table"`) {
		t.Fatalf("poll answer is not the table:\n%s", res.Body)
	}
	e.clock.Advance(bootTime - time.Second)
	poll().contains(polling, "Booting")
	e.clock.Advance(time.Second)
	poll().contains("Active").lacks(polling, `hx-get="/instances"`)

	// The full page and a plain htmx navigation are not the table alone.
	b.header.Del("HX-Target")
	b.get("/instances").expect(http.StatusOK).contains("<h1>Instances</h1>", "<title>Instances · cloudplane</title>").lacks(polling)
	b.htmx = false
	b.get("/instances").expect(http.StatusOK).contains("<!doctype html>").lacks(polling)

	if _, err := e.store.TerminateInstances(context.Background(), ada.Actor(), models.InstanceIDsInput{InstanceIDs: []string{id}}); err != nil {
		t.Fatal(err)
	}
	b.htmx = true
	b.header.Set("HX-Target", "instances-table")
	poll().contains(polling, "Terminating")
	e.clock.Advance(10 * time.Second)
	poll().contains("No instances running").lacks(polling, "web")
}

// An instance's page says how to reach it, and polls like the table.
func TestInstancePage(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	modelstest.InsertFilesystem(t, e.store, ada, "datasets", "us-east-1")
	rs := modelstest.InsertRuleset(t, e.store, ada, "jupyter", "us-east-1")
	ids, err := e.store.LaunchInstances(context.Background(), ada.Actor(), models.LaunchInstancesInput{RegionName: "us-east-1",
		InstanceTypeName: "gpu_1x_a10", SSHKeyNames: []string{"laptop"}, FileSystemNames: []string{"datasets"},
		FirewallRulesets: []models.RulesetRef{{ID: rs}}})
	if err != nil {
		t.Fatal(err)
	}
	d := e.instance(ada, ids[0])
	b := e.signedIn("ada@example.com")
	b.get("/instances/"+d.ID).expect(http.StatusOK).
		contains("<h1>Instance "+views.ShortID(d.ID)+"</h1>", "<title>Instance "+views.ShortID(d.ID)+" · cloudplane</title>", "Booting", polling,
			d.IP, d.PrivateIP, d.Hostname, "datasets", "/lambda/nfs/datasets", "jupyter", "laptop", "$0.75 / hour",
			"us-east-1", "Virginia, USA", `href="/instances" aria-current="page"`).
		lacks(`id="ssh-command"`)
	e.clock.Advance(bootTime)
	b.get("/instances/"+d.ID).expect(http.StatusOK).
		contains("Active", `<code id="ssh-command" class="secret">ssh -i ~/.ssh/id_ed25519_laptop ubuntu@`+d.IP+`</code>`, `data-copy="ssh-command"`,
			"<dt>Image</dt><dd>lambda-stack-24.04-2025.10", "version 2025.10",
			`href="/instances/`+d.ID+`/restart"`, `href="/instances/`+d.ID+`/terminate"`).
		lacks(polling)

	b.htmx = true
	b.header.Set("HX-Target", "instance-detail")
	res := b.get("/instances/"+d.ID).expect(http.StatusOK).lacks("<title>", "site-header", "back-link")
	if !strings.HasPrefix(res.Body, `<div id="instance-detail"`) {
		t.Fatalf("poll answer is not the details:\n%s", res.Body)
	}

	// A terminated instance keeps its page, without actions.
	if _, err := e.store.TerminateInstances(context.Background(), ada.Actor(), models.InstanceIDsInput{InstanceIDs: ids}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	b.htmx = false
	b.get("/instances/"+d.ID).expect(http.StatusOK).
		contains("Terminated", "can no longer be reached").lacks(`/terminate"`, `/restart"`, polling)
	b.get("/instances/nope").expect(http.StatusNotFound)
}

func TestTerminateInstance(t *testing.T) {
	e := newEnv(t)
	ada, id := e.ownerWithInstance("ada@example.com", "old")
	b := e.signedIn("ada@example.com")
	confirm := "/instances/" + id + "/terminate"
	b.confirmation(confirm, "Terminate instance “old”?", "<h1>Terminate instance</h1>", "its own disk is erased", `href="/instances"`)

	e.clock.Advance(time.Second)
	b.htmx = true
	b.post(confirm, nil).expect(http.StatusNoContent).redirectsTo("/instances")
	b.htmx = false
	b.get("/instances").expect(http.StatusOK).
		contains("Instance “old” is terminating.", "Terminating", polling).lacks(confirm)
	ev := e.events(ada, 1)[0]
	if ev.Action != "terminated" || ev.ResourceLRNs[0] != "lrn:cloud:instance:"+id || *ev.ActorLRN != "lrn:cloud:user:"+ada.ID {
		t.Fatalf("event %+v", ev)
	}
	// Again: nothing more happens, nothing more is recorded.
	b.post(confirm, nil).expect(http.StatusSeeOther)
	if n := modelstest.AuditCount(t, e.store, *ada.AccountID, "instance"); n != 2 {
		t.Fatalf("%d instance events, want launched and terminated", n)
	}
}

func TestRestartInstance(t *testing.T) {
	e := newEnv(t)
	ada, id := e.ownerWithInstance("ada@example.com", "")
	b := e.signedIn("ada@example.com")
	confirm := "/instances/" + id + "/restart"

	// Still booting: the domain refuses, and says why.
	b.post(confirm, nil).expect(http.StatusConflict).contains("cannot be restarted")

	e.clock.Advance(bootTime)
	b.confirmation(confirm, "Restart instance "+views.ShortID(id)+"?", "SSH sessions drop")
	b.post(confirm, nil).expect(http.StatusSeeOther).redirectsTo("/instances")
	b.get("/instances").expect(http.StatusOK).contains("Instance "+views.ShortID(id)+" is restarting.", "Booting", polling)
	if d := e.instance(ada, id); d.Status != models.InstanceBooting {
		t.Fatalf("status %s", d.Status)
	}
	if ev := e.events(ada, 1)[0]; ev.Action != "restarted" {
		t.Fatalf("event %+v", ev)
	}
}

// Another account's instances are not found: not listed, no page, no
// confirmation, no action, and they stay as they were.
func TestInstancesOfAnotherAccount(t *testing.T) {
	e := newEnv(t)
	ada, id := e.ownerWithInstance("ada@example.com", "adas-box")
	e.owner("bob@example.com")
	e.clock.Advance(bootTime)
	bob := e.signedIn("bob@example.com")
	bob.get("/instances").expect(http.StatusOK).lacks("adas-box", id)
	for _, path := range []string{"/instances/" + id, "/instances/" + id + "/terminate", "/instances/" + id + "/restart"} {
		bob.get(path).expect(http.StatusNotFound).lacks("adas-box")
	}
	bob.post("/instances/"+id+"/terminate", nil).expect(http.StatusNotFound)
	bob.post("/instances/"+id+"/restart", nil).expect(http.StatusNotFound)
	// Nor can bob launch with ada's key.
	bob.post("/instances", launchForm("region_name", "us-east-1", "instance_type_name", "gpu_1x_a10", "ssh_key_names", "laptop")).
		expect(http.StatusUnprocessableEntity).fieldError("ssh_key_names", "SSH key &#34;laptop&#34; does not exist.")
	if d := e.instance(ada, id); d.Status != models.InstanceActive {
		t.Fatalf("ada's instance is %s", d.Status)
	}
}

// The instance page's ssh command points -i at the file the SSH keys
// page told the user to save the generated private key as.
func TestInstancePageSSHCommandUsesTheSavedKeyFile(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	b.get("/ssh-keys")
	b.post("/ssh-keys/generate", url.Values{"name": {"Work laptop (2026)"}}).redirectsTo("/ssh-keys")
	generated := b.get("/ssh-keys").expect(http.StatusOK)
	m := regexp.MustCompile(`data-filename="([^"]+)"`).FindStringSubmatch(generated.Body)
	if m == nil {
		t.Fatalf("the SSH keys page suggests no file name:\n%s", generated.Body)
	}
	generated.contains("Save it as <code>~/.ssh/" + m[1] + "</code>")
	id := e.launch(ada, "", "us-east-1", "gpu_1x_a10", "Work laptop (2026)")
	e.clock.Advance(bootTime)
	b.get("/instances/" + id).expect(http.StatusOK).
		contains(`<code id="ssh-command" class="secret">ssh -i ~/.ssh/` + m[1] + ` ubuntu@` + e.instance(ada, id).IP + `</code>`)
}

package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"cloudplane/models"
)

// launchChoices is a launch form filled in everywhere but the SSH key.
func launchChoices(fs string) url.Values {
	return url.Values{"region_name": {"us-east-1"}, "instance_type_name": {"gpu_1x_a10"}, "name": {"kept-name"},
		"hostname": {"kept-host"}, "image": {"ubuntu-lts@24.04.01"}, "file_system_names": {fs},
		"tag_key": {"team"}, "tag_value": {"ml"}, "user_data": {"#cloud-config\nkept: true"}}
}

// What adding a key from the launch form keeps: every other choice.
var launchChoicesKept = []string{`value="kept-name"`, `value="kept-host"`, `<option value="us-east-1" selected>`,
	`value="gpu_1x_a10" checked`, `<option value="ubuntu-lts@24.04.01" selected`, `name="tag_key" type="text" value="team"`,
	`name="tag_value" type="text" value="ml"`, "#cloud-config\nkept: true</textarea>"}

func (e *env) instanceCount(u *models.User) int {
	e.t.Helper()
	list, err := e.store.Instances(context.Background(), u.Actor())
	if err != nil {
		e.t.Fatal(err)
	}
	return len(list)
}

// Without script, an account with no SSH key adds one inside the launch
// form (action=add-key): the form comes back with the key chosen and
// every other choice kept, no dead end to the SSH keys page; a refused
// key is said beside the key's fields, the rest kept; then the launch
// goes through with the new key.
func TestLaunchFormAddsAKeyWithoutLosingChoices(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.filesystem(ada, "data", "us-east-1")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch").expect(http.StatusOK).
		contains(`<details class="launch-add-key" open>`, `name="new_key_name"`, `name="new_public_key"`,
			`name="action" value="add-key"`, `name="action" value="generate-key"`, `hx-post="/instances/launch/ssh-key"`).
		lacks("come back here")

	v := launchChoices("data")
	v.Set("action", "add-key")
	v.Set("new_key_name", "laptop")
	v.Set("new_public_key", "ssh-ed25519 not-a-key")
	b.postMultipart("/instances", v).expect(http.StatusUnprocessableEntity).
		contains(launchChoicesKept...).contains(`value="data" checked`, `value="laptop"`, "ssh-ed25519 not-a-key</textarea>").
		contains(`id="field-new_public_key-error"`).lacks(`id="field-name-error"`)

	v.Set("new_public_key", edKey)
	b.postMultipart("/instances", v).expect(http.StatusOK).
		contains(launchChoicesKept...).contains(`value="data" checked`, `<option value="laptop" selected>`,
		"SSH key “laptop” added and chosen.").lacks("PRIVATE KEY", `<details class="launch-add-key" open>`)
	if keys, _ := e.store.SSHKeys(context.Background(), ada.Actor()); len(keys) != 1 || keys[0].Name != "laptop" {
		t.Fatalf("keys %+v, want laptop", keys)
	}
	if n := e.instanceCount(ada); n != 0 {
		t.Fatalf("adding a key launched %d instances", n)
	}

	v.Del("action")
	v.Set("ssh_key_names", "laptop")
	b.postMultipart("/instances", v).expect(http.StatusSeeOther).redirectsTo("/instances")
	if n := e.instanceCount(ada); n != 1 {
		t.Fatalf("%d instances after the launch, want 1", n)
	}
}

// Generating a pair from the launch form (without script) shows its
// private key in that answer only, with the key chosen; the next answer
// of the form does not show it again.
func TestLaunchFormGeneratesAKeyShownOnce(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "old")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch").expect(http.StatusOK).contains(`<details class="launch-add-key">`)
	v := launchChoices("")
	v.Set("ssh_key_names", "old")
	v.Set("action", "generate-key")
	v.Set("new_key_name", "fresh pair")
	p := b.postMultipart("/instances", v).expect(http.StatusOK).
		contains(launchChoicesKept...).contains(`<option value="fresh pair" selected>`, "BEGIN OPENSSH PRIVATE KEY",
		`data-download="private-key" data-filename="id_ed25519_fresh-pair"`)
	if strings.Count(p.Body, "BEGIN OPENSSH PRIVATE KEY") != 1 {
		t.Fatal("the private key is shown more than once")
	}
	v.Del("action")
	v.Set("add_tag", "1")
	v.Set("ssh_key_names", "fresh pair")
	b.postMultipart("/instances", v).expect(http.StatusOK).contains(`<option value="fresh pair" selected>`).lacks("PRIVATE KEY")
	b.get("/instances/launch").expect(http.StatusOK).lacks("PRIVATE KEY")
}

// With script the key buttons post the new key's fields alone to
// /instances/launch/ssh-key and get the form's key part back: the select
// with the new key chosen (and a generated private key), or the refusal
// beside the key's fields with the choice made so far.
func TestLaunchFormAddsAKeyWithScript(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "old")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch")
	b.htmx = true
	b.post("/instances/launch/ssh-key", url.Values{"action": {"generate-key"}, "new_key_name": {"gen"}}).
		expect(http.StatusOK).
		contains(`<div id="launch-ssh-key" class="launch-key">`, `<option value="old">old</option>`,
			`<option value="gen" selected>gen</option>`, "BEGIN OPENSSH PRIVATE KEY", "SSH key “gen” added and chosen.").
		lacks("<!doctype html>", "site-header", `name="region_name"`)
	b.post("/instances/launch/ssh-key", url.Values{"action": {"add-key"}, "new_key_name": {"gen"},
		"new_public_key": {edKey}, "ssh_key_names": {"old"}}).expect(http.StatusUnprocessableEntity).
		contains(`<option value="old" selected>`, `id="field-new_key_name-error"`, `value="gen"`).
		lacks("added and chosen", "PRIVATE KEY", "<!doctype html>")
	if keys, _ := e.store.SSHKeys(context.Background(), ada.Actor()); len(keys) != 2 {
		t.Fatalf("%d keys, want old and gen", len(keys))
	}
	// Reloaded (its address answers GET), it leads to the launch form.
	b.htmx = false
	b.get("/instances/launch/ssh-key").expect(http.StatusSeeOther).redirectsTo("/instances/launch")
}

// Without script a booting instance's page, and the list, reload
// themselves (a meta refresh inside noscript) until it is active; the
// pages say the boot time of --instance-boot-time.
func TestBootingPagesRefreshWithoutScript(t *testing.T) {
	e := newEnv(t, withConfig(func(c *models.Config) { c.InstanceBootTime = 90 * time.Second }))
	_, id := e.ownerWithInstance("ada@example.com", "web-1")
	b := e.signedIn("ada@example.com")
	refresh := `<noscript><meta http-equiv="refresh" content="3"></noscript>`
	b.get("/instances/launch").expect(http.StatusOK).
		contains("It boots in about 1 minute 30 seconds, then you can log in over SSH.").lacks("half a minute", refresh)
	b.get("/instances/"+id).expect(http.StatusOK).contains(refresh, "booting, which takes about 1 minute 30 seconds")
	b.get("/instances").expect(http.StatusOK).contains(refresh)
	e.clock.Advance(91 * time.Second)
	b.get("/instances/"+id).expect(http.StatusOK).contains("Active").lacks(refresh, "http-equiv")
	b.get("/instances").expect(http.StatusOK).lacks(refresh)
}

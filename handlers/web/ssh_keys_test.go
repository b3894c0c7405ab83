package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"cloudplane/models"
)

const edKeyFingerprint = "SHA256:7qVS2loUOTHon9DFMZWMNAKRd1WZIlHxBNWUJekuTno" // ssh-keygen -lf

func TestSSHKeysEmptyState(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	e.signedIn("ada@example.com").get("/ssh-keys").expect(http.StatusOK).
		contains("<h1>SSH keys</h1>", "No SSH keys yet", "generate a new pair above", `action="/ssh-keys"`,
			`formaction="/ssh-keys/generate"`, `href="/ssh-keys" aria-current="page"`)
}

func TestAddSSHKey(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	e.clock.Advance(time.Second)
	b.post("/ssh-keys", url.Values{"name": {"laptop"}, "public_key": {"  " + edKey + " ada@laptop\n"}}).
		expect(http.StatusSeeOther).redirectsTo("/ssh-keys")
	b.get("/ssh-keys").expect(http.StatusOK).
		contains("SSH key “laptop” added.", `<td class="cell-strong">laptop</td>`, edKeyFingerprint, "ssh-ed25519",
			`href="/ssh-keys/`).lacks("No SSH keys yet")
	ev := e.events(ada, 1)[0]
	if ev.ResourceName != "ssh_key" || ev.Action != "created" || *ev.ActorLRN != "lrn:cloud:user:"+ada.ID || ev.AdditionalDetails.Map()["generated"] != false {
		t.Fatalf("event %+v", ev)
	}
}

func TestAddSSHKeyShowsErrorsBesideTheFields(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "taken")
	b := e.signedIn("ada@example.com")
	cases := []struct {
		test, name, key, field, msg string
	}{
		{"no name", "", edKey, "name", "Name is required."},
		{"name taken", "taken", edKey, "name", "An SSH key named &#34;taken&#34; already exists in this account."},
		{"empty key", "fresh", "", "public_key", "Public key must not be empty; leave it out to have a key pair generated."},
		{"not a key", "fresh", "hello world", "public_key", `Public key is not an OpenSSH public key (expected e.g. &#34;ssh-ed25519 AAAA... comment&#34;).`},
		{"private key", "fresh", "-----BEGIN OPENSSH PRIVATE KEY-----", "public_key", `Public key is not an OpenSSH public key (expected e.g. &#34;ssh-ed25519 AAAA... comment&#34;).`},
	}
	for _, tc := range cases {
		t.Run(tc.test, func(t *testing.T) {
			b.post("/ssh-keys", url.Values{"name": {tc.name}, "public_key": {tc.key}}).expect(http.StatusUnprocessableEntity).
				fieldError(tc.field, tc.msg).contains(`value="`+tc.name+`"`, ">"+html.EscapeString(tc.key)+"</textarea>")
		})
	}
	b.htmx = true
	b.post("/ssh-keys", url.Values{"name": {""}, "public_key": {edKey}}).expect(http.StatusUnprocessableEntity).
		fieldError("name", "Name is required.").lacks("<!doctype html>")
}

var privateKeyInPage = regexp.MustCompile(`(?s)<textarea id="private-key"[^>]*>(.*?)</textarea>`)

// A generated pair's private key is shown once, on the page the post
// redirects to (post/redirect/get): a reload shows the list without it and
// generates nothing. Meanwhile the session keeps it sealed with its cookie,
// never in the clear, and no other session can open it. It works with the
// public key the account keeps.
func TestGenerateSSHKey(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	other := e.signedIn("ada@example.com")
	b.post("/ssh-keys/generate", url.Values{"name": {"ci runner"}, "public_key": {"ignored"}}).
		redirectsTo("/ssh-keys")
	var sealed []string
	e.store.DB().Model(&models.Session{}).Where("once IS NOT NULL").Pluck("once", &sealed)
	if len(sealed) != 1 || strings.Contains(sealed[0], "PRIVATE") {
		t.Fatalf("sessions keep %q", sealed)
	}
	other.get("/ssh-keys").expect(http.StatusOK).lacks("PRIVATE KEY")
	res := b.get("/ssh-keys").expect(http.StatusOK).
		contains("Your new key pair “ci runner”", "Save the private key now.", "only time it is shown",
			`data-download="private-key" data-filename="id_ed25519_ci-runner"`, `data-copy="private-key"`,
			"chmod 600 ~/.ssh/id_ed25519_ci-runner", `<td class="cell-strong">ci runner</td>`)
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	e.store.DB().Model(&models.Session{}).Where("once IS NOT NULL").Pluck("once", &sealed)
	if len(sealed) != 0 {
		t.Fatalf("the shown key is still kept: %q", sealed)
	}
	m := privateKeyInPage.FindStringSubmatch(res.Body)
	if m == nil {
		t.Fatalf("no private key in the page:\n%s", res.Body)
	}
	private := html.UnescapeString(m[1])
	signer, err := ssh.ParsePrivateKey([]byte(private))
	if err != nil {
		t.Fatalf("private key %q: %v", private, err)
	}
	keys, err := e.store.SSHKeys(t.Context(), ada.Actor())
	if err != nil || len(keys) != 1 || keys[0].PublicKey != strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))) {
		t.Fatalf("stored %+v, %v", keys, err)
	}
	res.contains(keys[0].Fingerprint())
	body := strings.Split(strings.TrimSpace(private), "\n")[1]
	b.get("/ssh-keys").expect(http.StatusOK).contains("ci runner").lacks(body, "PRIVATE KEY", "Save the private key")

	// A refused name shows the form again and generates nothing; its
	// address answers GET with the list (reload, or Back then Forward).
	b.post("/ssh-keys/generate", url.Values{"name": {"ci runner"}}).expect(http.StatusUnprocessableEntity).
		fieldError("name", "An SSH key named &#34;ci runner&#34; already exists in this account.").lacks("PRIVATE KEY")
	b.get("/ssh-keys/generate").redirectsTo("/ssh-keys")
	b.htmx = true
	b.post("/ssh-keys/generate", url.Values{"name": {"ci runner"}}).expect(http.StatusUnprocessableEntity).
		hasHeader("HX-Replace-Url", "/ssh-keys")
	if keys, _ := e.store.SSHKeys(t.Context(), ada.Actor()); len(keys) != 1 {
		t.Fatalf("%d keys after refusals, want 1", len(keys))
	}
}

func TestDeleteSSHKey(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	k := e.sshKey(ada, "old laptop")
	b := e.signedIn("ada@example.com")
	confirm := "/ssh-keys/" + k.ID + "/delete"
	b.confirmation(confirm, "Delete SSH key “old laptop”?", "<h1>Delete SSH key</h1>", "Instances already running keep it", `href="/ssh-keys"`)
	e.clock.Advance(time.Second)
	b.htmx = true
	b.post(confirm, nil).expect(http.StatusNoContent).redirectsTo("/ssh-keys")
	b.htmx = false
	b.get("/ssh-keys").expect(http.StatusOK).contains("SSH key “old laptop” deleted.", "No SSH keys yet")
	if ev := e.events(ada, 1)[0]; ev.ResourceName != "ssh_key" || ev.Action != "deleted" || *ev.ActorLRN != "lrn:cloud:user:"+ada.ID {
		t.Fatalf("event %+v", ev)
	}
	b.get(confirm).expect(http.StatusNotFound)
	b.post(confirm, nil).expect(http.StatusNotFound)
}

func TestSSHKeysOfAnotherAccount(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.owner("bob@example.com")
	k := e.sshKey(ada, "adas-key")
	bob := e.signedIn("bob@example.com")
	bob.get("/ssh-keys").expect(http.StatusOK).lacks("adas-key", edKeyFingerprint)
	bob.get("/ssh-keys/" + k.ID + "/delete").expect(http.StatusNotFound).lacks("adas-key")
	bob.post("/ssh-keys/"+k.ID+"/delete", nil).expect(http.StatusNotFound)
	// The same name in another account is fine: names are per account.
	bob.post("/ssh-keys", url.Values{"name": {"adas-key"}, "public_key": {edKey}}).expect(http.StatusSeeOther)
	if keys, _ := e.store.SSHKeys(t.Context(), ada.Actor()); len(keys) != 1 {
		t.Fatalf("ada has %d keys", len(keys))
	}
	if _, err := e.store.SSHKey(t.Context(), ada.Actor(), k.ID); err != nil {
		t.Fatal(err)
	}
}

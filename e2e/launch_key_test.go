package e2e

import (
	"net/http"
	"strings"
	"testing"

	"cloudplane/e2e/browser"
)

// An owner without an SSH key fills in the launch form, generates a key
// pair inside it (no trip to the SSH keys page), and launches: the new key
// is chosen, its private key shown once with a download, and every choice
// made before is still there.
func TestLaunchGeneratesAKeyInsideTheForm(t *testing.T) {
	s := need(t)
	o, b := s.onPage(t, "^Instances$")
	key := s.apiKey(t, o)
	b.Open("/instances/launch")
	form := b.Try(`formOf(find("main", "control", "^region"))`)
	if form == "" {
		b.Fail("the region control is not in a form")
	}
	b.Choose(form, "instance type", "gpu_1x_a10$")
	b.Choose(form, "region", "^us-east-1$")
	b.Fill(form, "^(instance )?name", "e2e-keyless")
	b.Fill(form, "^hostname", "e2e-kl")
	b.Fill(form, "^key 1$", "team")
	b.Fill(form, "^value 1$", "keys")
	b.Shot("launch form without a key")

	b.Fill(form, "^key name", "e2e-new-pair")
	b.Press(form, "^generate a key pair$")
	b.WaitText("#launch-ssh-key", "e2e-new-pair.* added and chosen")
	b.Settled()
	var got struct {
		Key, Name, Host, Region, Type, Tag, Private string
		Download                                    bool
	}
	// The download button is added by script after the swap: wait for it
	// before reading the form once.
	b.WaitJS("the generated key's download button", `!!find("#launch-ssh-key", "clickable", "^download private key$")`)
	b.WaitValue("the form's values", `(f => ({
		key: f.querySelector('select[name="ssh_key_names"]').value,
		name: f.querySelector('input[name="name"]').value,
		host: f.querySelector('input[name="hostname"]').value,
		region: f.querySelector('select[name="region_name"]').value,
		type: (f.querySelector('input[name="instance_type_name"]:checked') || {}).value,
		tag: f.querySelector('input[name="tag_key"]').value,
		private: (document.getElementById("private-key") || {}).value || "",
		download: !!find("#launch-ssh-key", "clickable", "^download private key$"),
	}))(document.querySelector(`+browser.JS(form)+`))`, &got)
	if got.Key != "e2e-new-pair" || got.Name != "e2e-keyless" || got.Host != "e2e-kl" || got.Region != "us-east-1" ||
		got.Type != "gpu_1x_a10" || got.Tag != "team" || !strings.Contains(got.Private, "PRIVATE KEY") || !got.Download {
		b.Fail("after generating a key the form holds %+v", got)
	}
	b.Shot("launch form key generated")

	b.Press(form, "^launch instance")
	b.WaitText("#flash", "e2e-keyless")
	var inst struct {
		SSHKeyNames []string `json:"ssh_key_names"`
	}
	s.api(t, key, http.MethodGet, "/instances/"+instanceID(t, s, key, "e2e-keyless"), nil).ok(t, http.StatusOK, &inst)
	if len(inst.SSHKeyNames) != 1 || inst.SSHKeyNames[0] != "e2e-new-pair" {
		t.Errorf("the instance was launched with keys %v, want e2e-new-pair", inst.SSHKeyNames)
	}
}

package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// Launching from the dashboard with an image version, a hostname, a tag
// and user data: the form offers only the images of the chosen region
// (with script), and the instance's page shows the image and an ssh
// command with the key file the SSH keys page suggests.
func TestInstanceLaunchWithImageAndUserData(t *testing.T) {
	s := need(t)
	o, b := s.onPage(t, "^Instances$")
	key := s.apiKey(t, o)
	s.api(t, key, http.MethodPost, "/ssh-keys", map[string]string{"name": "img-key"}).ok(t, http.StatusOK, nil)

	b.Open("/instances/launch")
	form := b.Try(`formOf(find("main", "control", "^region"))`)
	if form == "" {
		b.Fail("the region control is not in a form")
	}
	b.Choose(form, "instance type", "gpu_1x_a10$")
	arm := `document.querySelector('select[name="image"] option[value="ubuntu-lts-arm64"]').disabled`
	b.Choose(form, "region", "^us-south-1$")
	b.WaitJS("the Arm image is not offered in us-south-1", arm)
	b.Choose(form, "region", "^us-west-1$")
	b.WaitJS("the Arm image is offered in us-west-1", "!"+arm)
	b.Choose(form, "image", "^ubuntu-lts@24.04.01$")
	b.Choose(form, "ssh key", "^img-key$")
	b.Fill(form, "^(instance )?name", "e2e-image")
	b.Fill(form, "^hostname", "e2e-head")
	b.Fill(form, "^key 1$", "team")
	b.Fill(form, "^value 1$", "e2e")
	b.Fill(form, "^user data", "#cloud-config\nruncmd:\n  - echo hello")
	b.Shot("launch form with image")
	b.Press(form, "^launch instance")
	b.WaitText("#flash", "e2e-image")
	b.Press("main", "^e2e-image$")
	b.WaitText("main", "ubuntu-24.04.01")
	b.Shot("instance page with image")
	page := b.Text("main")
	for _, want := range []string{"ubuntu-24.04.01", "version 24.04.01", "ssh -i ~/.ssh/id_ed25519_img-key ubuntu@"} {
		if !strings.Contains(page, want) {
			t.Errorf("the instance page lacks %q:\n%s", want, page)
		}
	}

	var got struct {
		Hostname string
		Region   struct{ Name string }
		Tags     []struct{ Key, Value string }
	}
	s.api(t, key, http.MethodGet, "/instances/"+instanceID(t, s, key, "e2e-image"), nil).ok(t, http.StatusOK, &got)
	if got.Hostname != "e2e-head" || got.Region.Name != "us-west-1" || len(got.Tags) != 1 || got.Tags[0].Key != "team" {
		t.Errorf("the API shows %+v", got)
	}
}

package web_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// postMultipart sends form as the launch form does, multipart/form-data.
func (b *browser) postMultipart(path string, form url.Values) *page {
	b.e.t.Helper()
	if _, set := form["csrf_token"]; !set {
		form.Set("csrf_token", b.csrf)
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for name, values := range form {
		for _, v := range values {
			if err := w.WriteField(name, v); err != nil {
				b.e.t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		b.e.t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return b.send(req)
}

// The form offers the images grouped by family, each with the regions
// that offer it (said in words for browsers without script), and the
// hostname, tag rows and user data the API takes; it posts multipart so
// 1 MB of user data fits.
func TestLaunchFormOffersImagesAndTheRest(t *testing.T) {
	e := newEnv(t)
	e.sshKey(e.owner("ada@example.com"), "laptop")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch").expect(http.StatusOK).
		contains(`enctype="multipart/form-data"`, `<select id="field-image" name="image"`,
			`<option value="">Default: the newest lambda-stack-24-04 (Lambda Stack)</option>`,
			`<optgroup label="ubuntu-lts · x86_64"><option value="ubuntu-lts" data-regions="`,
			`<option value="ubuntu-lts@22.04.05" data-regions="us-east-1 us-west-1`,
			`<option value="ubuntu-lts-arm64@24.04.03" data-regions="us-east-1 us-west-1">ubuntu-24.04.03-arm64 · Ubuntu 24.04 LTS for Arm (GH200) — only in us-east-1, us-west-1</option>`,
			`name="hostname"`, `name="user_data"`, `name="add_tag"`).
		lacks("billing-warning")
	if n := strings.Count(b.get("/instances/launch").Body, `name="tag_key"`); n != 3 {
		t.Fatalf("%d blank tag rows, want 3", n)
	}
}

// A launch from the form with an image version, a hostname, tags (blank
// rows skipped) and user data records them as the API would; the image
// version is the one of the launch region.
func TestLaunchWithImageTagsAndUserData(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch")
	b.postMultipart("/instances", url.Values{"region_name": {"us-west-1"}, "instance_type_name": {"gpu_1x_a10"},
		"ssh_key_names": {"laptop"}, "image": {"ubuntu-lts@22.04.05"}, "hostname": {"head-node"},
		"tag_key": {"team", "", "env"}, "tag_value": {"ml", "", "prod"},
		"user_data": {"#!/bin/sh\r\necho hello\r\n" + strings.Repeat("#", models.MaxUserDataBytes-30)}}).
		expect(http.StatusSeeOther).redirectsTo("/instances")
	list, err := e.store.Instances(context.Background(), ada.Actor())
	if err != nil || len(list) != 1 {
		t.Fatalf("instances %v %v", list, err)
	}
	d := list[0]
	want := modelstest.Image(t, "ubuntu-lts", "22.04.05", "us-west-1")
	if d.ImageID == nil || *d.ImageID != want.ID || d.Hostname != "head-node" || len(d.Tags) != 2 ||
		d.Tags[0] != (models.InstanceTag{Key: "team", Value: "ml"}) || d.Tags[1] != (models.InstanceTag{Key: "env", Value: "prod"}) {
		t.Fatalf("launched %+v image %v", d.Instance, d.ImageID)
	}
	b.get("/instances/"+d.ID).expect(http.StatusOK).contains("<dt>Image</dt><dd>ubuntu-22.04.05", "version 22.04.05")

	// A family means its newest version in the region.
	b.postMultipart("/instances", url.Values{"region_name": {"us-east-1"}, "instance_type_name": {"gpu_1x_a10"},
		"ssh_key_names": {"laptop"}, "image": {"ubuntu-lts-arm64"}}).expect(http.StatusSeeOther)
	list, _ = e.store.Instances(context.Background(), ada.Actor())
	arm := modelstest.Image(t, "ubuntu-lts-arm64", "24.04.03", "us-east-1")
	if len(list) != 2 {
		t.Fatalf("%d instances, want 2", len(list))
	}
	for _, d := range list {
		if d.RegionName == "us-east-1" && *d.ImageID != arm.ID {
			t.Fatalf("launched image %s, want %s", *d.ImageID, arm.ID)
		}
	}
}

// Whatever the domain refuses comes back beside its field, a tag's
// problem on its own row, with every value as sent; nothing launches.
func TestLaunchRefusalKeepsTheForm(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch")
	form := func(field, value string) url.Values {
		v := url.Values{"region_name": {"us-south-1"}, "instance_type_name": {"gpu_1x_a10"}, "ssh_key_names": {"laptop"},
			"name": {"kept-name"}, "hostname": {"kept-host"}, "image": {"ubuntu-lts@24.04.01"},
			"tag_key": {"team", "", "env"}, "tag_value": {"ml", "", "prod"}, "user_data": {"#cloud-config\nkept: true"}}
		if field != "" {
			v.Set(field, value)
		}
		return v
	}
	// What every refusal below keeps: the fields it does not change.
	kept := []string{`value="kept-name"`, `<option value="us-south-1" selected>`, `<option value="laptop" selected>`,
		`value="gpu_1x_a10" checked`, `name="tag_key" type="text" value="team"`, `name="tag_value" type="text" value="ml"`,
		`name="tag_key" type="text" value="env"`, `name="tag_value" type="text" value="prod"`}
	armEast := modelstest.Image(t, "ubuntu-lts-arm64", "24.04.03", "us-east-1")
	huge := strings.Repeat("#", models.MaxUserDataBytes+1)
	cases := []struct {
		name, field, value string
		msg                string
		shows              string // the refused value, as sent
	}{
		{"image not in the region", "image", "ubuntu-lts-arm64@24.04.03",
			"Image &#34;" + armEast.ID + "&#34; (ubuntu-24.04.03-arm64) is not offered in us-south-1.", `<option value="ubuntu-lts-arm64@24.04.03" selected`},
		{"family not in the region", "image", "ubuntu-lts-arm64",
			"Image family &#34;ubuntu-lts-arm64&#34; is not offered in us-south-1.", `<option value="ubuntu-lts-arm64" selected`},
		{"unknown family", "image", "beos", "Image family &#34;beos&#34; does not exist.", ""},
		{"bad hostname", "hostname", "Kept_Host",
			"Hostname must be 1-63 lower-case letters, digits and dashes, starting with a letter or digit.", `value="Kept_Host"`},
		{"user data over 1 MB", "user_data", huge,
			"User data must be at most 1 MB (1000000 bytes), got 1000001 bytes.", huge + "</textarea>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b.postMultipart("/instances", form(tc.field, tc.value)).expect(http.StatusUnprocessableEntity).
				fieldError(tc.field, tc.msg).contains(kept...).contains(tc.shows)
		})
	}

	// A tag's problem is said on its row; the blank row between is kept
	// and ignored, so the third row is the domain's second tag.
	v := form("", "")
	v["tag_key"] = []string{"team", "", "Env"}
	p := b.postMultipart("/instances", v).expect(http.StatusUnprocessableEntity).
		contains(`value="kept-host"`, "#cloud-config\nkept: true</textarea>", `<option value="ubuntu-lts@24.04.01" selected`,
			`name="tag_key" type="text" value="Env"`, `<p class="field-error">Key must be 2-55 characters`)
	rows := strings.Split(p.Body, `class="form-row tag-row`)
	if len(rows) < 4 || strings.Contains(rows[1], "field-error") || strings.Contains(rows[2], "field-error") || !strings.Contains(rows[3], "Key must be") {
		t.Fatalf("the tag error is not on the third row:\n%s", p.Body)
	}
	if list, _ := e.store.Instances(context.Background(), ada.Actor()); len(list) != 0 {
		t.Fatalf("refused launches left %d instances", len(list))
	}
}

// "Add a tag" works without script: the form comes back with one more
// row and every value, and nothing is launched.
func TestLaunchFormAddsTagRows(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch")
	p := b.postMultipart("/instances", url.Values{"region_name": {"us-east-1"}, "name": {"kept"}, "add_tag": {"1"},
		"tag_key": {"a1", "b2", "c3"}, "tag_value": {"x", "y", "z"}}).expect(http.StatusOK).
		contains(`value="kept"`, `value="a1"`, `value="b2"`, `value="c3"`, `<option value="us-east-1" selected>`)
	if n := strings.Count(p.Body, `name="tag_key"`); n != 5 {
		t.Fatalf("%d tag rows, want the 3 sent, the blank one after them and the one asked for", n)
	}
	if list, _ := e.store.Instances(context.Background(), ada.Actor()); len(list) != 0 {
		t.Fatalf("adding a tag row launched %d instances", len(list))
	}
	// At the domain's limit no more rows are offered.
	keys, values := make([]string, models.MaxInstanceTags), make([]string, models.MaxInstanceTags)
	for i := range keys {
		keys[i], values[i] = "k"+strings.Repeat("x", i+1), "v"
	}
	p = b.postMultipart("/instances", url.Values{"add_tag": {"1"}, "tag_key": keys, "tag_value": values}).expect(http.StatusOK).
		lacks(`name="add_tag"`)
	if n := strings.Count(p.Body, `name="tag_key"`); n != models.MaxInstanceTags {
		t.Fatalf("%d tag rows, want %d", n, models.MaxInstanceTags)
	}
}

// While the billing address is invalid the launch page says so before
// anything is filled in, and points to support; a launch is refused with
// the form kept and the reason, not a bare 403 page.
func TestLaunchWithInvalidBillingAddress(t *testing.T) {
	e := newEnv(t)
	ada := e.owner("ada@example.com")
	e.sshKey(ada, "laptop")
	invalid := false
	if _, err := e.store.UpdateAccount(context.Background(), models.OperatorActor, "ada@example.com",
		models.UpdateAccountInput{BillingAddressValid: &invalid}); err != nil {
		t.Fatal(err)
	}
	b := e.signedIn("ada@example.com")
	b.get("/instances/launch").expect(http.StatusOK).
		contains(`id="billing-warning"`, "billing address is invalid", "Only support can correct it", `<a href="/tickets">support tickets</a>`)
	b.postMultipart("/instances", url.Values{"region_name": {"us-east-1"}, "instance_type_name": {"gpu_1x_a10"},
		"ssh_key_names": {"laptop"}, "name": {"kept"}, "image": {"ubuntu-lts"}, "tag_key": {"team"}, "tag_value": {"ml"}}).
		expect(http.StatusForbidden).
		contains(`role="alert"`, "The instance was not launched: your account&#39;s billing address is invalid.", `id="billing-warning"`,
			`<a href="/tickets">support tickets</a>`, `value="kept"`, `<option value="ubuntu-lts" selected`, `value="team"`,
			`action="/instances"`).
		lacks("Correct the billing address")
	if list, _ := e.store.Instances(context.Background(), ada.Actor()); len(list) != 0 {
		t.Fatalf("a refused launch left %d instances", len(list))
	}
	b.get("/instances/launch")
	valid := true
	if _, err := e.store.UpdateAccount(context.Background(), models.OperatorActor, "ada@example.com",
		models.UpdateAccountInput{BillingAddressValid: &valid}); err != nil {
		t.Fatal(err)
	}
	b.get("/instances/launch").expect(http.StatusOK).lacks("billing-warning")
}

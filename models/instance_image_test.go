package models_test

import (
	"context"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// An instance records the image it boots: the one named by id, the
// family's newest version in the launch region, or without an image the
// newest Lambda Stack there, as the reference's default reads.
func TestLaunchRecordsItsImage(t *testing.T) {
	f := newFixture(t)
	old := modelstest.Image(t, "ubuntu-lts", "22.04.05", "us-west-1")
	cases := []struct {
		name   string
		region string
		image  *models.ImageSpec
		want   models.Image
	}{
		{"by id", "us-west-1", &models.ImageSpec{ID: old.ID}, old},
		{"by family", "us-east-1", &models.ImageSpec{Family: "ubuntu-lts"}, modelstest.Image(t, "ubuntu-lts", "24.04.03", "us-east-1")},
		{"an Arm family where it is offered", "us-east-1", &models.ImageSpec{Family: "ubuntu-lts-arm64"},
			modelstest.Image(t, "ubuntu-lts-arm64", "24.04.03", "us-east-1")},
		{"none", "europe-central-1", nil, modelstest.Image(t, models.DefaultImageFamily, "2025.10", "europe-central-1")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := launchInput(tc.region, 1)
			in.Image = tc.image
			id := f.launch(t, f.alice, in)[0]
			d := f.instance(t, f.alice, id)
			if d.ImageID == nil || *d.ImageID != tc.want.ID {
				t.Fatalf("image %v, want %s (%s)", d.ImageID, tc.want.ID, tc.want.Name)
			}
			recorded := 0
			for _, ev := range f.events(t, f.alice, "instance") {
				if ev.ResourceLRNs[0] == "lrn:cloud:instance:"+id && ev.AdditionalDetails.Map()["image_id"] == tc.want.ID {
					recorded++
				}
			}
			if recorded != 1 {
				t.Fatalf("%d launched events name image %s", recorded, tc.want.ID)
			}
		})
	}
}

// An image that does not exist, or is not offered in the launch region,
// is the reference's launch-resource 404 on the field at fault, with the
// way to list images, and launches nothing.
func TestLaunchImageRefusals(t *testing.T) {
	f := newFixture(t)
	west := modelstest.Image(t, "ubuntu-lts", "24.04.03", "us-west-1")
	cases := []struct {
		name  string
		image models.ImageSpec
		field string
		text  string
	}{
		{"unknown id", models.ImageSpec{ID: models.NewID()}, "image.id", "does not exist"},
		{"unknown family", models.ImageSpec{Family: "windows-xp"}, "image.family", `family "windows-xp" does not exist`},
		{"id of another region", models.ImageSpec{ID: west.ID}, "image.id", "(ubuntu-24.04.03) is not offered in us-south-1"},
		{"family not in the region", models.ImageSpec{Family: "ubuntu-lts-arm64"}, "image.family", "is not offered in us-south-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := launchInput("us-south-1", 1)
			in.Image = &tc.image
			_, err := f.store.LaunchInstances(context.Background(), f.alice, in)
			wantCode(t, err, models.CodeNotFound)
			e, _ := models.AsError(err)
			if len(e.Fields) != 1 || !strings.Contains(e.Fields[tc.field], tc.text) || !strings.Contains(e.Message, tc.field) {
				t.Fatalf("fields %v message %q: want %s saying %q", e.Fields, e.Message, tc.field, tc.text)
			}
			if !strings.Contains(e.Suggestion, "GET /api/v1/images") {
				t.Fatalf("suggestion %q does not say how to list images", e.Suggestion)
			}
		})
	}
	if list, _ := f.store.Instances(context.Background(), f.alice); len(list) != 0 {
		t.Fatalf("refused launches left %d instances", len(list))
	}
}

// The image is checked where the other names of a launch are: after the
// input's own rules and the billing address, after the SSH key and the
// filesystems, before the rulesets and the capacity. So a request that
// was refused before images were checked is refused the same way now.
func TestLaunchChecksTheImageInOrder(t *testing.T) {
	f := newFixture(t, withCapacity("gpu_1x_a10:us-east-1=0"))
	bobRS := f.ruleset(t, f.bob, "bobs", "us-east-1")
	unknown := &models.ImageSpec{Family: "nope"}
	cases := []struct {
		name string
		edit func(*models.LaunchInstancesInput)
		code models.Code
		text string
	}{
		{"bad hostname first", func(in *models.LaunchInstancesInput) { in.Hostname = "Bad_Host" }, models.CodeInvalidParameters, "hostname"},
		{"unknown key first", func(in *models.LaunchInstancesInput) { in.SSHKeyNames = []string{"nope"} }, models.CodeNotFound, "ssh_key_names.0"},
		{"unknown filesystem first", func(in *models.LaunchInstancesInput) { in.FileSystemNames = []string{"nope"} }, models.CodeNotFound, "file_system_names.0"},
		{"then the image", func(in *models.LaunchInstancesInput) { in.FirewallRulesets = []models.RulesetRef{{ID: bobRS}} }, models.CodeNotFound, "image.family"},
		{"the image before capacity", func(*models.LaunchInstancesInput) {}, models.CodeNotFound, "image.family"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := launchInput("us-east-1", 1)
			in.Image = unknown
			tc.edit(&in)
			_, err := f.store.LaunchInstances(context.Background(), f.alice, in)
			wantCode(t, err, tc.code)
			if !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("%v does not mention %q", err, tc.text)
			}
		})
	}
	invalid := false
	if _, err := f.store.UpdateAccount(context.Background(), models.OperatorActor, "alice@example.com",
		models.UpdateAccountInput{BillingAddressValid: &invalid}); err != nil {
		t.Fatal(err)
	}
	in := launchInput("us-east-1", 1)
	in.Image = unknown
	_, err := f.store.LaunchInstances(context.Background(), f.alice, in)
	wantCode(t, err, models.CodeInvalidAddress)
}

// A malformed image or user data is the input's own problem (400), named
// by its field; user data up to 1 MB of plain text is accepted.
func TestLaunchImageAndUserDataValidation(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*models.LaunchInstancesInput)
		field string
	}{
		{"empty image", func(in *models.LaunchInstancesInput) { in.Image = &models.ImageSpec{} }, "image"},
		{"id and family", func(in *models.LaunchInstancesInput) {
			in.Image = &models.ImageSpec{ID: models.NewID(), Family: "ubuntu-lts"}
		}, "image"},
		{"control character in the id", func(in *models.LaunchInstancesInput) { in.Image = &models.ImageSpec{ID: "a\x00b"} }, "image.id"},
		{"long family", func(in *models.LaunchInstancesInput) {
			in.Image = &models.ImageSpec{Family: strings.Repeat("f", 129)}
		}, "image.family"},
		{"user data over 1 MB", func(in *models.LaunchInstancesInput) {
			in.UserData = strings.Repeat("#", models.MaxUserDataBytes+1)
		}, "user_data"},
		{"binary user data", func(in *models.LaunchInstancesInput) { in.UserData = "#cloud-config\n\x1f\x8b" }, "user_data"},
		{"invalid UTF-8 user data", func(in *models.LaunchInstancesInput) { in.UserData = "#!/bin/sh\n\xff" }, "user_data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := launchInput("us-east-1", 1)
			tc.edit(&in)
			err := in.Validate()
			wantCode(t, err, models.CodeInvalidParameters)
			if e, _ := models.AsError(err); len(e.Fields) != 1 || e.Fields[tc.field] == "" {
				t.Fatalf("fields %v, want only %s", e.Fields, tc.field)
			}
		})
	}
	in := launchInput("us-east-1", 1)
	script := "#cloud-config\r\nruncmd:\n\t- echo hi\n"
	in.UserData = script + strings.Repeat("#", models.MaxUserDataBytes-len(script))
	in.Image = &models.ImageSpec{Family: strings.Repeat("f", 128)} // well formed; whether it exists is the launch's to say
	if err := in.Validate(); err != nil {
		t.Fatalf("1 MB of user data: %v", err)
	}
}

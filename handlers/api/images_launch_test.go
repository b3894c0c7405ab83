package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Launch's image is an id or a family of the catalogue offered in the
// launch region. One that does not exist or is offered elsewhere is the
// reference's launch-resource 404 with a suggestion to list the images; a
// malformed one is 400 naming the field. Every answer is checked against
// the reference document.
func TestLaunchImages(t *testing.T) {
	e := newEnv(t, withCapacity(t, "gpu_1x_a10:us-east-1=20,gpu_1x_a10:us-south-1=20"))
	e.addSSHKey(e.key, "key")
	east := modelstest.Image(t, "ubuntu-lts", "22.04.05", "us-east-1")
	west := modelstest.Image(t, "ubuntu-lts", "22.04.05", "us-west-1")
	south := map[string]any{"region_name": "us-south-1"}
	with := func(fields map[string]any, image any) map[string]any {
		out := map[string]any{"image": image}
		for k, v := range fields {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name   string
		with   map[string]any
		status int
		code   models.Code
		text   string
	}{
		{"by id", with(nil, map[string]string{"id": east.ID}), http.StatusOK, "", ""},
		{"by family", with(nil, map[string]string{"family": "ubuntu-lts-arm64"}), http.StatusOK, "", ""},
		{"null is the default", with(nil, nil), http.StatusOK, "", ""},
		{"unknown id", with(nil, map[string]string{"id": models.NewID()}), http.StatusNotFound, models.CodeNotFound, "image.id"},
		{"unknown family", with(nil, map[string]string{"family": "windows-xp"}), http.StatusNotFound, models.CodeNotFound, `"windows-xp" does not exist`},
		{"id of another region", with(nil, map[string]string{"id": west.ID}), http.StatusNotFound, models.CodeNotFound, "is not offered in us-east-1"},
		{"family not in the region", with(south, map[string]string{"family": "ubuntu-lts-arm64"}), http.StatusNotFound, models.CodeNotFound, "is not offered in us-south-1"},
		{"a string", with(nil, "ubuntu-lts"), http.StatusBadRequest, models.CodeInvalidParameters, "image"},
		{"an empty object", with(nil, map[string]string{}), http.StatusBadRequest, models.CodeInvalidParameters, "image"},
		{"id and family", with(nil, map[string]string{"id": east.ID, "family": "ubuntu-lts"}), http.StatusBadRequest, models.CodeInvalidParameters, "not both"},
		{"a numeric id", with(nil, map[string]int{"id": 7}), http.StatusBadRequest, models.CodeInvalidParameters, "image.id"},
		{"a control character", with(nil, map[string]string{"family": "ubuntu\u0007"}), http.StatusBadRequest, models.CodeInvalidParameters, "image.family"},
		{"malformed before unknown key", with(map[string]any{"ssh_key_names": []string{"nope"}}, map[string]string{}), http.StatusBadRequest, models.CodeInvalidParameters, "image"},
		{"unknown key before unknown image", with(map[string]any{"ssh_key_names": []string{"nope"}}, map[string]string{"family": "nope"}), http.StatusNotFound, models.CodeNotFound, "ssh_key_names.0"},
		{"user data over 1 MB", map[string]any{"user_data": strings.Repeat("#", models.MaxUserDataBytes+1)}, http.StatusBadRequest, models.CodeInvalidParameters, "user_data"},
		{"user data with NUL", map[string]any{"user_data": "#!/bin/sh\x00"}, http.StatusBadRequest, models.CodeInvalidParameters, "user_data"},
	}
	launched := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/v1/instance-operations/launch", launchBody(tc.with))
			if tc.code == "" {
				r.expect(tc.status)
				launched++
				return
			}
			r.expectError(tc.status, tc.code)
			if !strings.Contains(r.message(), tc.text) {
				t.Fatalf("message %q does not mention %s", r.message(), tc.text)
			}
			var body struct {
				Error struct {
					Suggestion string `json:"suggestion"`
				} `json:"error"`
			}
			_ = json.Unmarshal(r.Body, &body)
			list := "GET /api/v1/images"
			if strings.HasPrefix(tc.text, "ssh_key_names") {
				list = "GET /api/v1/ssh-keys"
			}
			if tc.code == models.CodeNotFound && !strings.Contains(body.Error.Suggestion, list) {
				t.Fatalf("suggestion %q does not say how to list them (%s)", body.Error.Suggestion, list)
			}
		})
	}
	var list []apiInstance
	e.do(http.MethodGet, "/api/v1/instances", nil).expect(http.StatusOK).data(&list)
	if len(list) != launched {
		t.Fatalf("%d instances, want the %d launched", len(list), launched)
	}
}

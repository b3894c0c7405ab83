package e2e

import (
	"net/http"
	"testing"
)

// A filesystem name the domain refuses comes back beside the Name field;
// a good one is created, flashed, listed, and seen by the API.
func TestFilesystemCreate(t *testing.T) {
	s := need(t)
	o, b := s.onPage(t, "^Filesystems$")
	b.shot("filesystems empty")

	b.fill("main", "^Name", "1-starts-with-a-digit")
	b.choose("main", "^Region", "^us-east-1$")
	b.press("main", "^Create")
	b.wantFieldError("main", "^Name", "must start with a letter")
	b.shot("filesystem name refused")

	b.fill("main", "^Name", "e2e-datasets")
	b.choose("main", "^Region", "^us-east-1$")
	b.press("main", "^Create")
	b.waitText("#flash", "e2e-datasets")
	b.rowWith("e2e-datasets")
	b.shot("filesystem created")

	key := s.apiKey(t, o)
	var list []struct {
		Name   string
		Region struct{ Name string }
	}
	s.api(t, key, http.MethodGet, "/filesystems", nil).ok(t, http.StatusOK, &list)
	if len(list) != 1 || list[0].Name != "e2e-datasets" || list[0].Region.Name != "us-east-1" {
		t.Errorf("the API lists %+v, want only e2e-datasets in us-east-1", list)
	}
}

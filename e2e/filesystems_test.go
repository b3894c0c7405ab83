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
	b.Shot("filesystems empty")

	b.Fill("main", "^Name", "1-starts-with-a-digit")
	b.Choose("main", "^Region", "^us-east-1$")
	b.Press("main", "^Create")
	b.WantFieldError("main", "^Name", "must start with a letter")
	b.Shot("filesystem name refused")

	b.Fill("main", "^Name", "e2e-datasets")
	b.Choose("main", "^Region", "^us-east-1$")
	b.Press("main", "^Create")
	b.WaitText("#flash", "e2e-datasets")
	b.RowWith("e2e-datasets")
	b.Shot("filesystem created")

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

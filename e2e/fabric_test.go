package e2e

import (
	"net/http"
	"testing"
)

// A fabric partition is created in the dashboard (a refused name comes
// back beside the field), renamed in the dialog, and deleted after a
// confirmation; the API sees each step.
func TestFabricPartitionLifecycle(t *testing.T) {
	s := need(t)
	o, b := s.onPage(t, "^Fabric partitions$")
	b.waitText("main", "No fabric partitions yet")
	b.shot("fabric partitions empty")

	b.fill("main", "^Name", "Upper-Case")
	b.choose("main", "^Region", "^us-east-1$")
	b.press("main", "^Create")
	b.wantFieldError("main", "^Name", "lower-case")

	b.fill("main", "^Name", "e2e-training")
	b.choose("main", "^Region", "^us-east-1$")
	b.press("main", "^Create")
	b.waitText("#flash", "e2e-training")
	b.rowWith("e2e-training")
	b.shot("fabric partition created")

	b.press(b.rowWith("e2e-training"), "^Rename")
	b.waitText("dialog[open]", "Rename “e2e-training”")
	b.fill("dialog[open]", "^New name", "e2e-inference")
	b.shot("rename dialog")
	b.press("dialog[open]", "^Rename partition")
	b.waitText("#flash", "e2e-inference")
	b.rowWith("e2e-inference")

	// The API answers for the partition under its new name.
	key := s.apiKey(t, o)
	var renamed struct {
		ID, Name string
		Region   struct{ Name string }
	}
	id := b.try(`(row => row && document.querySelector(row + " a[href$='/rename']").getAttribute("href").split("/")[2])(rowWith("e2e-inference"))`)
	s.api(t, key, http.MethodPost, "/fabric/"+id, map[string]string{"name": "e2e-inference"}).ok(t, http.StatusOK, &renamed)
	if renamed.Name != "e2e-inference" || renamed.Region.Name != "us-east-1" {
		t.Errorf("the API answers %+v, want e2e-inference in us-east-1", renamed)
	}

	b.confirmRowAction("e2e-inference", "^Delete", "Delete “e2e-inference”", "^Delete partition", "e2e-inference.*deleted")
	b.waitText("main", "No fabric partitions yet")
	s.api(t, key, http.MethodDelete, "/fabric/"+id, nil).ok(t, http.StatusNotFound, nil)
}

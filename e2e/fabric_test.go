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
	b.WaitText("main", "No fabric partitions yet")
	b.Shot("fabric partitions empty")

	b.Fill("main", "^Name", "Upper-Case")
	b.Choose("main", "^Region", "^us-east-1$")
	b.Press("main", "^Create")
	b.WantFieldError("main", "^Name", "lower-case")

	b.Fill("main", "^Name", "e2e-training")
	b.Choose("main", "^Region", "^us-east-1$")
	b.Press("main", "^Create")
	b.WaitText("#flash", "e2e-training")
	b.RowWith("e2e-training")
	b.Shot("fabric partition created")

	b.Press(b.RowWith("e2e-training"), "^Rename")
	b.WaitText("dialog[open]", "Rename “e2e-training”")
	b.Fill("dialog[open]", "^New name", "e2e-inference")
	b.Shot("rename dialog")
	b.Press("dialog[open]", "^Rename partition")
	b.WaitText("#flash", "e2e-inference")
	b.RowWith("e2e-inference")

	// The API answers for the partition under its new name.
	key := s.apiKey(t, o)
	var renamed struct {
		ID, Name string
		Region   struct{ Name string }
	}
	id := b.Try(`(row => row && document.querySelector(row + " a[href$='/rename']").getAttribute("href").split("/")[2])(rowWith("e2e-inference"))`)
	s.api(t, key, http.MethodPost, "/fabric/"+id, map[string]string{"name": "e2e-inference"}).ok(t, http.StatusOK, &renamed)
	if renamed.Name != "e2e-inference" || renamed.Region.Name != "us-east-1" {
		t.Errorf("the API answers %+v, want e2e-inference in us-east-1", renamed)
	}

	b.confirmRowAction("e2e-inference", "^Delete", "Delete “e2e-inference”", "^Delete partition", "e2e-inference.*deleted")
	b.WaitText("main", "No fabric partitions yet")
	s.api(t, key, http.MethodDelete, "/fabric/"+id, nil).ok(t, http.StatusNotFound, nil)
}

package api_test

import (
	"net/http"
	"testing"

	"cloudplane/models"
)

// The catalogue lists several families and versions in every region, each
// image with a stable 32-hex id, and Arm images only where they run.
func TestImagesCatalogue(t *testing.T) {
	e := newEnv(t)
	var images []models.Image
	e.do(http.MethodGet, "/api/v1/images", nil).expect(http.StatusOK).data(&images)
	if len(images) != len(models.Images) {
		t.Fatalf("%d images, want %d", len(images), len(models.Images))
	}
	ids := map[string]bool{}
	families := map[string]map[string]bool{} // region -> families
	for _, img := range images {
		if len(img.ID) != 32 || ids[img.ID] {
			t.Fatalf("image id %q is not a unique 32-hex id", img.ID)
		}
		ids[img.ID] = true
		if families[img.Region.Name] == nil {
			families[img.Region.Name] = map[string]bool{}
		}
		families[img.Region.Name][img.Family] = true
		if img.Architecture == models.ArchARM64 && img.Region.Name != "us-east-1" && img.Region.Name != "us-west-1" {
			t.Fatalf("arm64 image offered in %s", img.Region.Name)
		}
	}
	for _, r := range models.Regions {
		if len(families[r.Name]) < 3 {
			t.Fatalf("region %s offers %d families", r.Name, len(families[r.Name]))
		}
	}
	e.doAs("cpk_nope", http.MethodGet, "/api/v1/images", nil).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
}

package models

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"
)

// Image is a machine image an instance boots from. The catalogue is fixed
// and the same on every replica: an image's id is derived from its family,
// version and region, so it never changes between releases either.
type Image struct {
	ID           string    `json:"id"`
	CreatedTime  time.Time `json:"created_time"`
	UpdatedTime  time.Time `json:"updated_time"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	Family       string    `json:"family"`
	Version      string    `json:"version"`
	Architecture string    `json:"architecture"`
	Region       Region    `json:"region"`
}

// Image architectures.
const (
	ArchX86_64 = "x86_64"
	ArchARM64  = "arm64"
)

// imageRelease is one version of a family, offered in every region of the
// family (or the listed ones).
type imageRelease struct {
	family, version, name, description, arch string
	released                                 string // date
	regions                                  []string
}

// imageReleases lists each family's versions oldest first: a launch that
// names a family gets its newest version offered in the launch region.
var imageReleases = []imageRelease{
	{"ubuntu-lts", "22.04.05", "ubuntu-22.04.05", "Ubuntu 22.04 LTS", ArchX86_64, "2024-09-12", nil},
	{"ubuntu-lts", "24.04.01", "ubuntu-24.04.01", "Ubuntu 24.04 LTS", ArchX86_64, "2024-08-29", nil},
	{"ubuntu-lts", "24.04.03", "ubuntu-24.04.03", "Ubuntu 24.04 LTS", ArchX86_64, "2025-08-07", nil},
	{"lambda-stack-22-04", "2025.03", "lambda-stack-22.04-2025.03", "Ubuntu 22.04 with Lambda Stack (CUDA, PyTorch, TensorFlow)", ArchX86_64, "2025-03-18", nil},
	{"lambda-stack-24-04", "2025.06", "lambda-stack-24.04-2025.06", "Ubuntu 24.04 with Lambda Stack (CUDA, PyTorch, TensorFlow)", ArchX86_64, "2025-06-24", nil},
	{"lambda-stack-24-04", "2025.10", "lambda-stack-24.04-2025.10", "Ubuntu 24.04 with Lambda Stack (CUDA, PyTorch, TensorFlow)", ArchX86_64, "2025-10-14", nil},
	{"ubuntu-lts-arm64", "24.04.03", "ubuntu-24.04.03-arm64", "Ubuntu 24.04 LTS for Arm (GH200)", ArchARM64, "2025-08-07",
		[]string{"us-east-1", "us-west-1"}},
}

// Images is the catalogue: every release in every region it is offered
// in, in region order, then family and version as listed.
var Images = func() []Image {
	var out []Image
	for _, r := range Regions {
		for _, rel := range imageReleases {
			if rel.regions != nil && !slices.Contains(rel.regions, r.Name) {
				continue
			}
			at, err := time.Parse(time.DateOnly, rel.released)
			if err != nil {
				panic(fmt.Sprintf("image %s: %v", rel.name, err))
			}
			sum := sha256.Sum256([]byte(rel.family + "/" + rel.version + "/" + r.Name))
			out = append(out, Image{ID: hex.EncodeToString(sum[:16]), CreatedTime: at, UpdatedTime: at,
				Name: rel.name, Description: rel.description, Family: rel.family, Version: rel.version,
				Architecture: rel.arch, Region: r})
		}
	}
	return out
}()

// ImageSpec chooses an image at launch: by id, or by family (its newest
// version in the launch region). Exactly one is set.
type ImageSpec struct {
	ID     string `json:"id,omitempty"`
	Family string `json:"family,omitempty"`
}

// resolveImage finds the image spec names in region, or explains as a
// field error on image why there is none.
func resolveImage(spec ImageSpec, region string) (*Image, error) {
	switch {
	case spec.ID != "" && spec.Family != "":
		return nil, InvalidField("image", "give either id or family, not both")
	case spec.ID == "" && spec.Family == "":
		return nil, InvalidField("image", "must have an id or a family; see GET /api/v1/images")
	}
	var found *Image
	known := false
	for i := range Images {
		img := &Images[i]
		if (spec.ID != "" && img.ID != spec.ID) || (spec.Family != "" && img.Family != spec.Family) {
			continue
		}
		known = true
		if img.Region.Name == region {
			found = img // the last listed is the newest version
		}
	}
	switch {
	case found != nil:
		return found, nil
	case !known && spec.ID != "":
		return nil, InvalidField("image.id", fmt.Sprintf("unknown image %q; see GET /api/v1/images", spec.ID))
	case !known:
		return nil, InvalidField("image.family", fmt.Sprintf("unknown image family %q; see GET /api/v1/images", spec.Family))
	case spec.ID != "":
		return nil, InvalidField("image.id", fmt.Sprintf("image %q is not offered in %s", spec.ID, region))
	}
	return nil, InvalidField("image.family", fmt.Sprintf("image family %q is not offered in %s", spec.Family, region))
}

// LookupImage finds an image by id.
func LookupImage(id string) (*Image, bool) {
	for i := range Images {
		if Images[i].ID == id {
			return &Images[i], true
		}
	}
	return nil, false
}

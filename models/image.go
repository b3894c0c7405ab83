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

// DefaultImageFamily is the family a launch without an image boots: the
// reference's default is "the latest Lambda Stack image".
const DefaultImageFamily = "lambda-stack-24-04"

// maxImageRef bounds an image id or family in a launch request, so that
// what is echoed in an error stays short; no real one comes close.
const maxImageRef = 128

const suggestImages = "List the images offered in each region with GET /api/v1/images"

// validate checks the spec's shape: exactly one of id and family, each a
// short line of text. Whether it names an image is resolveImage's to say.
func (spec *ImageSpec) validate(f *FieldErrors) {
	field, ref := "image.id", spec.ID
	switch {
	case spec.ID != "" && spec.Family != "":
		f.Add("image", "must have either an id or a family, not both")
		return
	case spec.ID == "" && spec.Family == "":
		f.Add("image", "must have an id or a family; see GET /api/v1/images")
		return
	case spec.Family != "":
		field, ref = "image.family", spec.Family
	}
	if checkLine(f, field, ref) && len(ref) > maxImageRef {
		f.Add(field, fmt.Sprintf("must be at most %d characters, got %d", maxImageRef, len(ref)))
	}
}

// resolveImage finds the image a validated spec names in region: by id,
// or the family's newest version there. An image or family that does not
// exist, or is not offered in region, is CodeNotFound on the field, with
// the reference's suggestion.
func resolveImage(spec ImageSpec, region string) (*Image, error) {
	var found, elsewhere *Image
	for i := range Images {
		img := &Images[i]
		if (spec.ID != "" && img.ID != spec.ID) || (spec.Family != "" && img.Family != spec.Family) {
			continue
		}
		if img.Region.Name != region {
			elsewhere = img
			continue
		}
		found = img // the last listed is the newest version
	}
	switch {
	case found != nil:
		return found, nil
	case elsewhere == nil && spec.ID != "":
		return nil, imageNotFound("image.id", fmt.Sprintf("image %q does not exist", spec.ID))
	case elsewhere == nil:
		return nil, imageNotFound("image.family", fmt.Sprintf("image family %q does not exist", spec.Family))
	case spec.ID != "":
		return nil, imageNotFound("image.id", fmt.Sprintf("image %q (%s) is not offered in %s", spec.ID, elsewhere.Name, region))
	}
	return nil, imageNotFound("image.family", fmt.Sprintf("image family %q is not offered in %s", spec.Family, region))
}

func imageNotFound(field, msg string) error {
	return &Error{Code: CodeNotFound, Message: field + ": " + msg, Suggestion: suggestImages,
		Fields: map[string]string{field: msg}}
}

// launchImageID is the id of the image a launch boots in its region: the
// one it names, or else the newest of DefaultImageFamily there (nil: the
// region offers none, and the instance records no image).
func launchImageID(in *LaunchInstancesInput) (*string, error) {
	spec := ImageSpec{Family: DefaultImageFamily}
	if in.Image != nil {
		spec = *in.Image
	}
	img, err := resolveImage(spec, in.RegionName)
	switch {
	case err == nil:
		return &img.ID, nil
	case in.Image != nil:
		return nil, err
	}
	return nil, nil
}

// ImageVersion finds the image of family and version offered in region.
func ImageVersion(family, version, region string) (*Image, bool) {
	for i := range Images {
		if img := &Images[i]; img.Family == family && img.Version == version && img.Region.Name == region {
			return img, true
		}
	}
	return nil, false
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

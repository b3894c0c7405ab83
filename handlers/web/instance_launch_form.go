package web

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// The launch form posts multipart/form-data: 1 MB of user data fits in a
// request that way, where URL encoding could triple it past the body
// limit.

// blankTagRows is how many tag rows the form offers before any is filled.
const blankTagRows = 3

// maxTagRows bounds the rows read from a form; the domain refuses more
// than its limit with a message.
const maxTagRows = 100

// launchForm is the launch form as sent, beyond its single-valued fields.
type launchForm struct {
	views.Form
	filesystems, rulesets []string
	tags                  []views.TagRow
	tagsError             string
	newKey                launchNewKey // a key just added from the form, or refused
}

// formList copies every value of a repeated form field (checkboxes, tag
// rows), from either form encoding.
func formList(c *fiber.Ctx, name string) []string {
	if mf, err := c.MultipartForm(); err == nil {
		return slices.Clone(mf.Value[name])
	}
	var out []string
	for _, v := range c.Request().PostArgs().PeekMulti(name) {
		out = append(out, string(v))
	}
	return out
}

// parseTagRows reads the tag rows as typed, row n's key with row n's
// value.
func parseTagRows(c *fiber.Ctx) []views.TagRow {
	keys, values := formList(c, "tag_key"), formList(c, "tag_value")
	n := min(max(len(keys), len(values)), maxTagRows)
	rows := make([]views.TagRow, n)
	for i := range rows {
		if i < len(keys) {
			rows[i].Key = strings.TrimSpace(keys[i])
		}
		if i < len(values) {
			rows[i].Value = values[i]
		}
	}
	return rows
}

// launchTags are the rows that are not blank, as the domain's tags, with
// the row each came from.
func launchTags(rows []views.TagRow) ([]models.InstanceTag, []int) {
	var tags []models.InstanceTag
	var from []int
	for i, r := range rows {
		if r.Key == "" && r.Value == "" {
			continue
		}
		tags = append(tags, models.InstanceTag{Key: r.Key, Value: r.Value})
		from = append(from, i)
	}
	return tags, from
}

// fileTagErrors moves the domain's errors about tags ("tags.2.key") to
// the rows they came from, and one about the list to the form.
func (f *launchForm) fileTagErrors(from []int) {
	for field, msg := range f.Errors {
		rest, ok := strings.CutPrefix(field, "tags")
		if !ok {
			continue
		}
		delete(f.Errors, field)
		n, part, _ := strings.Cut(strings.TrimPrefix(rest, "."), ".")
		i, err := strconv.Atoi(n)
		if err != nil || i < 0 || i >= len(from) {
			f.tagsError = msg
			continue
		}
		label := "Key"
		if part == "value" {
			label = "Value"
		}
		f.tags[from[i]].Error = views.Sentence(label, msg)
	}
}

// shownTagRows are the rows to render: the ones sent, then blank ones up
// to blankTagRows, always one blank row after a filled one, and extra
// more, while the domain's limit allows more tags.
func shownTagRows(rows []views.TagRow, extra int) []views.TagRow {
	blank := max(blankTagRows-len(rows), 0)
	if last := len(rows) - 1; blank == 0 && (rows[last].Key != "" || rows[last].Value != "") {
		blank = 1
	}
	blank = min(blank+extra, models.MaxInstanceTags-len(rows))
	out := append([]views.TagRow{}, rows...)
	for range blank {
		out = append(out, views.TagRow{})
	}
	return out
}

// imageChoice reads the form's image: "" is the default, a family its
// newest version, "family@version" that version in the launch region (or,
// where the region has none, the version in the first region that has it,
// for the domain to refuse with its message).
func imageChoice(value, region string) *models.ImageSpec {
	if value == "" {
		return nil
	}
	family, version, pinned := strings.Cut(value, "@")
	if !pinned {
		return &models.ImageSpec{Family: family}
	}
	if img, ok := models.ImageVersion(family, version, region); ok {
		return &models.ImageSpec{ID: img.ID}
	}
	for _, r := range models.Regions {
		if img, ok := models.ImageVersion(family, version, r.Name); ok {
			return &models.ImageSpec{ID: img.ID}
		}
	}
	return &models.ImageSpec{Family: value}
}

// imageOptions offer each family's newest version, then each version,
// newest first, each with the regions that offer it.
func imageOptions() []views.Option {
	type version struct {
		img     models.Image
		regions []string
	}
	var families []string
	versions := map[string][]*version{}
	for _, img := range models.Images {
		if !slices.Contains(families, img.Family) {
			families = append(families, img.Family)
		}
		i := slices.IndexFunc(versions[img.Family], func(v *version) bool { return v.img.Version == img.Version })
		if i < 0 {
			versions[img.Family] = append(versions[img.Family], &version{img: img})
			i = len(versions[img.Family]) - 1
		}
		v := versions[img.Family][i]
		v.regions = append(v.regions, img.Region.Name)
	}
	slices.Sort(families)
	var out []views.Option
	for _, family := range families {
		vs := versions[family]
		newest := vs[len(vs)-1].img
		group := family + " · " + newest.Architecture
		var all []string
		for _, v := range vs {
			for _, r := range v.regions {
				if !slices.Contains(all, r) {
					all = append(all, r)
				}
			}
		}
		out = append(out, views.Option{Value: family, Group: group, Regions: all,
			Label: "Newest: " + newest.Description + " (" + newest.Version + ")" + onlyIn(all)})
		for i := len(vs) - 1; i >= 0; i-- {
			img := vs[i].img
			out = append(out, views.Option{Value: family + "@" + img.Version, Group: group, Regions: vs[i].regions,
				Label: fmt.Sprintf("%s · %s", img.Name, img.Description) + onlyIn(vs[i].regions)})
		}
	}
	return out
}

// onlyIn names the regions of an image not offered everywhere, for the
// form without script, which cannot hide the others.
func onlyIn(regions []string) string {
	if len(regions) == len(models.Regions) {
		return ""
	}
	return " — only in " + strings.Join(regions, ", ")
}

package api

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// setETag answers the strong ETag of an object at version: the version
// counter, quoted. It changes on every change of the object.
func setETag(c *fiber.Ctx, version int64) {
	c.Set(fiber.HeaderETag, `"`+strconv.FormatInt(version, 10)+`"`)
}

// errBadIfMatch answers an If-Match that is not "*" or a list of entity
// tags: the client meant a condition we cannot read, so nothing runs.
var errBadIfMatch = models.InvalidField(fiber.HeaderIfMatch,
	`must be * or a comma-separated list of entity tags as the ETag header gives them, such as "7"`)

// ifMatch reads If-Match (RFC 9110 §13.1.1) into the domain's
// precondition. No header, or "*" (the object exists, which the write
// checks anyway), asks nothing. The comparison is strong and exact: a
// weak tag, or a tag that is not the canonical decimal of a version ("07",
// "+7"), is well formed but matches nothing, so the write fails with 412
// rather than overwrite blindly; so does an empty list (a header sent
// empty is not ignored). A header that is no list of entity tags is 400.
func ifMatch(c *fiber.Ctx) (models.Precondition, error) {
	sent := c.Request().Header.PeekAll(fiber.HeaderIfMatch)
	if len(sent) == 0 {
		return models.Precondition{}, nil
	}
	values := make([]string, len(sent))
	for i, v := range sent {
		values[i] = string(v)
	}
	header := strings.Trim(strings.Join(values, ","), " \t")
	if header == "*" {
		return models.Precondition{}, nil
	}
	tags, ok := parseEntityTags(header)
	if !ok {
		return models.Precondition{}, errBadIfMatch
	}
	var versions []int64
	for _, tag := range tags {
		if tag.weak {
			continue
		}
		if v, ok := models.ParseVersion(tag.opaque); ok {
			versions = append(versions, v)
		}
	}
	return models.IfVersion(versions...), nil
}

// entityTag is one entity-tag of a list: its opaque part without quotes.
type entityTag struct {
	weak   bool
	opaque string
}

// parseEntityTags reads #entity-tag (RFC 9110 §5.6.1, §8.8.3): tags
// separated by commas and optional whitespace, empty elements allowed,
// and none at all (an empty list, which matches nothing). Each is [W/] DQUOTE *etagc DQUOTE, where etagc is any
// visible character but DQUOTE (a comma too), or obs-text.
func parseEntityTags(list string) ([]entityTag, bool) {
	var tags []entityTag
	for i := 0; i < len(list); {
		switch list[i] {
		case ' ', '\t', ',':
			i++
			continue
		}
		var tag entityTag
		if strings.HasPrefix(list[i:], "W/") {
			tag.weak = true
			i += 2
		}
		if i == len(list) || list[i] != '"' {
			return nil, false
		}
		end := strings.IndexByte(list[i+1:], '"')
		if end < 0 {
			return nil, false
		}
		tag.opaque = list[i+1 : i+1+end]
		for j := 0; j < len(tag.opaque); j++ {
			if b := tag.opaque[j]; b < 0x21 || b == 0x7f {
				return nil, false
			}
		}
		tags = append(tags, tag)
		i += end + 2
		for i < len(list) && (list[i] == ' ' || list[i] == '\t') {
			i++
		}
		if i < len(list) && list[i] != ',' {
			return nil, false
		}
	}
	return tags, true
}

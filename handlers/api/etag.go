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

// ifMatch reads If-Match into the domain's precondition. No header, or
// "*" (the object exists, which the write checks anyway), asks nothing.
// A weak or malformed tag matches nothing, as If-Match compares strongly:
// the write then fails with 412 rather than overwrite blindly.
func ifMatch(c *fiber.Ctx) models.Precondition {
	header := strings.TrimSpace(c.Get(fiber.HeaderIfMatch))
	if header == "" || header == "*" {
		return models.Precondition{}
	}
	var versions []int64
	for part := range strings.SplitSeq(header, ",") {
		tag := strings.TrimSpace(part)
		if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
			continue
		}
		if v, err := strconv.ParseInt(tag[1:len(tag)-1], 10, 64); err == nil {
			versions = append(versions, v)
		}
	}
	return models.IfVersion(versions...)
}

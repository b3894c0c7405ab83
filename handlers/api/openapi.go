package api

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"

	"github.com/gofiber/fiber/v2"
)

// openAPIDocument is cloudplane's own description of this API: the Lambda
// Cloud API's operations and shapes, in our words, with cloudplane's
// additions (idempotency keys, ETags, scoped keys, 429 and 503 answers).
// The API tests check every answer against it, so it cannot drift.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIETag lets clients and caches revalidate the document cheaply.
var openAPIETag = func() string {
	sum := sha256.Sum256(openAPIDocument)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}()

// OpenAPIDocument serves the document. It needs no key: it describes the
// API and holds nothing of any account, like the reference's public copy.
func OpenAPIDocument(c *fiber.Ctx) error {
	c.Set(fiber.HeaderETag, openAPIETag)
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	if c.Get(fiber.HeaderIfNoneMatch) == openAPIETag {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(openAPIDocument)
}

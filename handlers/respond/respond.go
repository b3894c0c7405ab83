// Package respond holds what both front doors, the JSON API
// (handlers/api) and the dashboard (handlers/web), answer alike: the
// status of a domain error code, the Retry-After of an unavailable
// database, the failure log line, and the wire shape of domain values
// both send (an audit event). Neither door imports the other; both
// import this.
package respond

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// statusOf is the one place a domain error code becomes an HTTP status.
var statusOf = map[models.Code]int{
	models.CodeInvalidParameters:   fiber.StatusBadRequest,
	models.CodeDuplicate:           fiber.StatusBadRequest,
	models.CodeQuotaExceeded:       fiber.StatusBadRequest,
	models.CodeFilesystemInUse:     fiber.StatusBadRequest,
	models.CodeRulesetInUse:        fiber.StatusBadRequest,
	models.CodeInsufficientCap:     fiber.StatusBadRequest,
	models.CodeFilesystemWrongZone: fiber.StatusBadRequest,
	models.CodeInvalidAPIKey:       fiber.StatusUnauthorized,
	models.CodeAccountInactive:     fiber.StatusForbidden,
	models.CodeInvalidAddress:      fiber.StatusForbidden,
	models.CodeBudgetExceeded:      fiber.StatusForbidden,
	models.CodeForbidden:           fiber.StatusForbidden,
	models.CodeRouteNotFound:       fiber.StatusNotFound,
	models.CodeNotFound:            fiber.StatusNotFound,
	models.CodeConflict:            fiber.StatusConflict,
	models.CodePreconditionFailed:  fiber.StatusPreconditionFailed,
	models.CodeInsufficientScope:   fiber.StatusForbidden,
	models.CodeRateLimited:         fiber.StatusTooManyRequests,
	models.CodeProviderUnavailable: fiber.StatusServiceUnavailable,
	models.CodeInternal:            fiber.StatusInternalServerError,
}

// Status is the HTTP status of a domain error, or 0 for a code without
// one. The API answers it as is; the dashboard starts from it.
func Status(e *models.Error) int {
	if e.Retryable {
		return fiber.StatusConflict
	}
	return statusOf[e.Code]
}

// RetryAfterUnavailable is the Retry-After, in seconds, of a 503: long
// enough for a restarted database or a failover, short enough that a
// script waiting on it does not stall.
const RetryAfterUnavailable = "5"

// LogFailure logs a failed request the operator must see: an internal
// error, or the database being unavailable. A request cancelled because
// the server is stopping (or its caller left) is no error of ours.
func LogFailure(c *fiber.Ctx, log *slog.Logger, status int, err error) {
	switch {
	case status == fiber.StatusInternalServerError:
		log.ErrorContext(c.UserContext(), "request failed", "method", c.Method(), "path", c.Path(), "err", err)
	case status == fiber.StatusServiceUnavailable && !models.ClientGone(err):
		log.WarnContext(c.UserContext(), "database unavailable", "method", c.Method(), "path", c.Path(), "err", err)
	}
}

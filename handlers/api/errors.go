package api

import (
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/observe"
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

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code       models.Code `json:"code"`
	Message    string      `json:"message"`
	Suggestion string      `json:"suggestion,omitempty"`
	RequestID  string      `json:"request_id"`
}

// WriteError answers err in the API's error envelope. It is called by the
// app's error handler for every failure on an /api/ path, including ones
// raised before routing (oversized bodies) and recovered panics.
func WriteError(c *fiber.Ctx, log *slog.Logger, err error) error {
	status, e := classify(err)
	LogFailure(c, log, status, err)
	if status == fiber.StatusServiceUnavailable {
		c.Set(fiber.HeaderRetryAfter, RetryAfterUnavailable)
	}
	c.Status(status)
	return c.JSON(errorBody{Error: errorDetail{Code: e.Code, Message: e.Message, Suggestion: e.Suggestion, RequestID: observe.RequestID(c)}})
}

// Status is the HTTP status of a domain error, or 0 for a code without
// one. The dashboard starts from it too, so a code gets its status here.
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
	case uploadTurnRefused(err):
		log.WarnContext(c.UserContext(), "upload refused: no upload turn came in time", "method", c.Method(), "path", c.Path(), "err", err)
	case status == fiber.StatusServiceUnavailable && !models.ClientGone(err):
		log.WarnContext(c.UserContext(), "database unavailable", "method", c.Method(), "path", c.Path(), "err", err)
	}
}

func classify(err error) (int, *models.Error) {
	// An upload past its declared size is invalid input, answered 413 as
	// a storage service would (the transfer routes are not the API's).
	var tooLarge *models.UploadTooLargeError
	if errors.As(err, &tooLarge) {
		if e, ok := models.Classify(err); ok {
			return fiber.StatusRequestEntityTooLarge, e
		}
	}
	if e, ok := models.Classify(err); ok {
		if status := Status(e); status != 0 {
			return status, e
		}
	}
	// Unknown routes and methods never get here as fiber errors: NoRoute,
	// the catch-all under /api, answers them as domain errors.
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusRequestEntityTooLarge:
			return fiber.StatusBadRequest, &models.Error{Code: models.CodeInvalidParameters, Message: "The request body is larger than 1 MiB"}
		case fiber.StatusBadRequest:
			return fe.Code, &models.Error{Code: models.CodeInvalidParameters, Message: fe.Message}
		}
	}
	return fiber.StatusInternalServerError, &models.Error{Code: models.CodeInternal, Message: "An unexpected error occurred",
		Suggestion: "Try again; if it persists, contact support with the request_id"}
}

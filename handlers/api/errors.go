package api

import (
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/observe"
	"cloudplane/handlers/respond"
	"cloudplane/models"
)

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
	if uploadTurnRefused(err) {
		// Load shed on purpose, not the database failing.
		log.WarnContext(c.UserContext(), "upload refused: no upload turn came in time", "method", c.Method(), "path", c.Path(), "err", err)
	} else {
		respond.LogFailure(c, log, status, err)
	}
	if status == fiber.StatusServiceUnavailable {
		c.Set(fiber.HeaderRetryAfter, respond.RetryAfterUnavailable)
	}
	c.Status(status)
	return c.JSON(errorBody{Error: errorDetail{Code: e.Code, Message: e.Message, Suggestion: e.Suggestion, RequestID: observe.RequestID(c)}})
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
		if status := respond.Status(e); status != 0 {
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

package web

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/observe"
	"cloudplane/handlers/respond"
	"cloudplane/models"
	"cloudplane/views"
)

// statusOf is a domain error's status on a page: the API's, except that
// input the domain refuses is 422, since the form comes back with the
// problems beside its fields. 0 means the error has no code.
func statusOf(e *models.Error) int {
	status := respond.Status(e)
	if status == fiber.StatusBadRequest {
		return fiber.StatusUnprocessableEntity
	}
	return status
}

// formError puts a refused input back on its form: field messages beside
// their fields, anything else above the form. It returns the status to
// answer with (429 for a throttled form), or the error itself when it is
// not about the input (not found, forbidden, internal), for the error page. An error that names
// fields is about the input whatever its code: a launch naming a key
// deleted meanwhile is 404 in the API, and here its form comes back.
func formError(err error, form *views.Form) (int, error) {
	e, ok := models.AsError(err)
	if ok && statusOf(e) == fiber.StatusTooManyRequests {
		// Throttled, or no free password slot: nothing was wrong with the
		// input, so it comes back as typed with the reason above it.
		form.Message = strings.TrimSpace(views.Sentence("", e.Message) + " " + views.Sentence("", e.Suggestion))
		return fiber.StatusTooManyRequests, nil
	}
	if ok && statusOf(e) == fiber.StatusServiceUnavailable {
		// The database was busy or slow: nothing was wrong with the
		// input, so the form comes back as typed, to send again.
		form.Message = unavailableMessage(err)
		return fiber.StatusServiceUnavailable, nil
	}
	if !ok || (statusOf(e) != fiber.StatusUnprocessableEntity && len(e.Fields) == 0) {
		return 0, err
	}
	form.Errors = inCustomerWords(e.Fields)
	if len(e.Fields) == 0 {
		form.Message = customerText(e.Message)
	}
	return fiber.StatusUnprocessableEntity, nil
}

// unavailableMessage says above a form that the database did not take
// its change: certainly not made when it was refused after waiting for a
// lock (models.IsBusy); otherwise it did not answer in time.
func unavailableMessage(err error) string {
	if models.IsBusy(err) {
		return "The service is busy. Nothing was saved; try again."
	}
	return "The service did not answer in time. Check whether the change was made, or try again."
}

// ErrorPage answers a failed page request: the app's error handler calls
// it for every path outside /api/. Errors without a code are logged with
// the request id and shown as internal errors. For htmx the page replaces
// the main content, whatever the request targeted.
func ErrorPage(c *fiber.Ctx, log *slog.Logger, err error) error {
	v := classify(err)
	if _, domain := models.Classify(err); domain && v.Status == fiber.StatusNotFound {
		v = notFoundPage(v, c.Path())
	}
	respond.LogFailure(c, log, v.Status, err)
	switch v.Status {
	case fiber.StatusInternalServerError:
		v.RequestID = observe.RequestID(c)
	case fiber.StatusServiceUnavailable:
		c.Set(fiber.HeaderRetryAfter, respond.RetryAfterUnavailable)
	}
	m := views.Meta{Title: v.Title}
	if sess, u := signedIn(c); u != nil {
		m.User = viewUser(sess, u)
		m.CSRF = sess.CSRFToken
	}
	if isFragment(c) {
		c.Set("HX-Retarget", "#main")
		c.Set("HX-Reswap", "innerHTML show:window:top")
	}
	return render(c, v.Status, m, views.ErrorContent(v))
}

func classify(err error) views.ErrorPage {
	if e, ok := models.Classify(err); ok {
		if status := statusOf(e); status != 0 && status != fiber.StatusInternalServerError {
			return views.ErrorPage{Status: status, Title: titleOf(status), Message: customerText(e.Message),
				Suggestion: customerText(e.Suggestion)}
		}
	}
	var fe *fiber.Error
	if errors.As(err, &fe) && fe.Code < 500 {
		v := views.ErrorPage{Status: fe.Code, Title: titleOf(fe.Code), Message: "The request could not be handled."}
		if fe.Code == fiber.StatusUnsupportedMediaType { // a compressed request body
			v.Message = "The form was sent compressed (with a Content-Encoding), which this site does not accept."
			v.Suggestion = "Send it again without compressing it."
		}
		if fe.Code == fiber.StatusNotFound || fe.Code == fiber.StatusMethodNotAllowed {
			v.Status, v.Title = fiber.StatusNotFound, titleOf(fiber.StatusNotFound)
			v.Message = "There is no page at this address."
			v.Suggestion = "Check the address, or start again from the home page."
		}
		return v
	}
	return views.ErrorPage{Status: fiber.StatusInternalServerError, Title: titleOf(fiber.StatusInternalServerError),
		Message: "Something went wrong on our side.", Suggestion: "Try again in a moment."}
}

func titleOf(status int) string {
	switch status {
	case fiber.StatusNotFound:
		return "Page not found"
	case fiber.StatusForbidden:
		return "Not allowed"
	case fiber.StatusTooManyRequests:
		return "Too many requests"
	case fiber.StatusInternalServerError:
		return "Something went wrong"
	case fiber.StatusServiceUnavailable:
		return "Temporarily unavailable"
	}
	return http.StatusText(status)
}

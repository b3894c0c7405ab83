package handlers

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"cloudplane/handlers/api"
	"cloudplane/handlers/web"
	"cloudplane/models"
)

// guardServer gives the answers fasthttp makes before any route runs the
// app's own shape: a method fiber does not know (PROPFIND, garbage) was a
// plain-text 400, and a request fasthttp could not read (headers past
// ReadBufferSize, a malformed multipart body) reached the error handler
// without the request id, and without the security headers the
// middleware sets. Now both go through errorHandler, the one place
// failures become answers, after SetSecurityHeaders.
func guardServer(app *fiber.App, log *slog.Logger, guard *api.Guard) {
	srv := app.Server()
	handle := errorHandler(log)
	methods := app.Config().RequestMethods
	route := srv.Handler
	srv.Handler = func(fctx *fasthttp.RequestCtx) {
		// Every body is read (or refused) first, whatever the method:
		// bodies are streamed, and the rest of one left unread would be
		// taken for the next request on the connection (smuggling).
		if !bufferBody(fctx, srv.ErrorHandler) {
			return
		}
		if !slices.Contains(methods, string(fctx.Method())) {
			answer(app, log, guard, fctx, func(c *fiber.Ctx) error { return handle(c, api.NoRoute(c)) })
			return
		}
		route(fctx)
		lingerUnreadUpload(fctx)
	}
	srv.ErrorHandler = func(fctx *fasthttp.RequestCtx, err error) {
		// fasthttp closes the connection after this answer, often with
		// the rest of the request unread; a client too slow to send it
		// is not waited for again.
		if !timedOut(err) {
			lingerOnClose(fctx.Conn(), readOutLimit(fctx))
		}
		answer(app, log, guard, fctx, func(c *fiber.Ctx) error { return unreadable(c, log, handle, err) })
	}
}

// answer runs write on a fiber context made for a request no route saw.
// Under /api/ (or with the path lost, answered in the envelope too) it
// gets the RateLimit headers every API answer has.
func answer(app *fiber.App, log *slog.Logger, guard *api.Guard, fctx *fasthttp.RequestCtx, write func(*fiber.Ctx) error) {
	c := app.AcquireCtx(fctx)
	defer app.ReleaseCtx(c)
	web.SetSecurityHeaders(c)
	if err := write(c); err != nil {
		log.Error("low-level answer failed", "err", err)
		c.Status(fiber.StatusInternalServerError)
	}
	if isAPIPath(c.Path()) || requestLost(c) {
		guard.Describe(c)
	}
}

// unreadable answers a request fasthttp could not read. fasthttp resets
// the request before it calls here when the headers (or a multipart body)
// could not be read, so the path is often unknown: then the answer is the
// JSON envelope, which the API requires and a browser shows well enough.
func unreadable(c *fiber.Ctx, log *slog.Logger, handle fiber.ErrorHandler, err error) error {
	status, msg := fiber.StatusBadRequest, "The request could not be read: its headers or body are malformed"
	var small *fasthttp.ErrSmallBuffer
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge) && ambiguousFraming(&c.Request().Header):
		msg = "The request's body length is ambiguous: it has more than one Content-Length, or Content-Length with Transfer-Encoding"
	case timedOut(err):
		// A client too slow to send its request (slowloris) is cut off
		// with fasthttp's own status, before the connection closes.
		status, msg = fiber.StatusRequestTimeout, "The request did not arrive within the server's read timeout"
	case errors.Is(err, errEncodedBody):
		status, msg = fiber.StatusUnsupportedMediaType, "Request bodies must not be compressed: send the body without Content-Encoding"
	case errors.As(err, &small):
		status, msg = fiber.StatusRequestHeaderFieldsTooLarge, fmt.Sprintf("The request's headers are larger than %d KiB", HeaderLimit>>10)
	case errors.Is(err, fasthttp.ErrBodyTooLarge) && isTransferPath(c.Path()):
		status, msg = fiber.StatusRequestEntityTooLarge, fmt.Sprintf("The upload is larger than the size its URL declares (attachments are at most %d MiB)", models.MaxAttachmentSize>>20)
	case errors.Is(err, fasthttp.ErrBodyTooLarge) && isUploadForm(c.Path()):
		status, msg = fiber.StatusRequestEntityTooLarge, fmt.Sprintf("The upload is too large: signed in, a file of up to %d MiB may be sent as a multipart form with a Content-Length; any other body may have %d MiB",
			models.MaxAttachmentSize>>20, BodyLimit>>20)
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		msg = fmt.Sprintf("The request body is larger than %d MiB", BodyLimit>>20)
	default:
		// err quotes the request, which may hold secrets: log, do not echo.
		log.Debug("unreadable request", "err", err)
	}
	if !requestLost(c) && !isAPIPath(c.Path()) && !isTransferPath(c.Path()) {
		return handle(c, fiber.NewError(status, msg))
	}
	werr := api.WriteError(c, log, models.Errorf(models.CodeInvalidParameters, "%s", msg))
	c.Status(status) // 431 and 415 are no domain status; the contract allows them here
	return werr
}

// lingerUnreadUpload reads out, before its connection closes, the body
// of a streamed upload its handler refused (403, 404, 409, 413, 429, 503)
// without reading it to the end: closed with input unread, the socket
// would reset and the client, still sending, never read the answer. An
// upload taken (2xx) was read to its end. The read-out may take as much
// as an attachment may have, bounded by lingerTimeout.
func lingerUnreadUpload(fctx *fasthttp.RequestCtx) {
	if isStreamedUpload(&fctx.Request.Header) && fctx.Response.StatusCode() >= fiber.StatusMultipleChoices {
		lingerOnClose(fctx.Conn(), readOutLimit(fctx))
	}
}

// readOutLimit is how much of a refused body is read out before the
// connection closes: a file sent to an upload URL or to the dashboard's
// upload form may be as large as an attachment, whoever sends it.
func readOutLimit(fctx *fasthttp.RequestCtx) int {
	if path := string(fctx.Path()); isTransferPath(path) || isUploadForm(path) {
		return models.MaxAttachmentSize + uploadFormOverhead
	}
	return lingerLimit
}

func timedOut(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// requestLost reports whether fasthttp reset the request before its
// ErrorHandler: a request always has headers, so none left means reset.
func requestLost(c *fiber.Ctx) bool { return len(c.Request().Header.RawHeaders()) == 0 }

// Package observe gives every request an id and, once it is answered,
// writes its access-log line and records it in the request metrics. It
// also builds the server's slog logger, which adds the request's id to
// every line logged with the request's context, whoever logs it.
package observe

import (
	"context"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/metrics"
	"cloudplane/models"
)

// Config is what the middleware needs.
type Config struct {
	Log     *slog.Logger
	Metrics *metrics.Metrics // nil: no request metrics
	// TrustProxies keeps the X-Request-Id of requests from the app's
	// trusted proxies; false when none are configured.
	TrustProxies bool
	// NoAccessLog switches the access log off (--access-log=false); the
	// request metrics and ids are kept.
	NoAccessLog bool
}

const accountLocal = "observe.account_id"

// SetAccount names the account a request acts for, for its access-log
// line; authentication calls it once it knows.
func SetAccount(c *fiber.Ctx, accountID string) {
	if accountID != "" {
		c.Locals(accountLocal, accountID)
	}
}

// unmatched labels requests that reached no route of their own, so a
// scan of random paths cannot grow the metrics.
const (
	unmatched      = "unmatched"
	unmatchedLocal = "observe.unmatched"
)

// Unmatched must be registered after every route: a request that gets
// there matched none, and is labelled so (fiber's Route would name the
// last middleware it passed).
func Unmatched(c *fiber.Ctx) error {
	MarkUnmatched(c)
	return c.Next()
}

// MarkUnmatched labels c as Unmatched does, for a catch-all that answers
// it itself.
func MarkUnmatched(c *fiber.Ctx) { c.Locals(unmatchedLocal, true) }

// Middleware must be the app's first: it assigns the request id before
// anything can log, and runs the error handler itself, as fiber's logger
// does, so the line and the metrics see the status actually answered.
func Middleware(cfg Config) fiber.Handler {
	log := Contextual(cfg.Log)
	out := accessOutputOf(log)
	logged := !cfg.NoAccessLog
	if out != nil && !log.Enabled(context.Background(), slog.LevelInfo) {
		logged = false // the level is fixed: no line will ever pass it
	}
	return func(c *fiber.Ctx) error {
		start := time.Now()
		id := incomingID(c, cfg.TrustProxies)
		if id == "" {
			id = models.NewID()
		}
		assignRequestID(c, id)
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				_ = c.SendStatus(fiber.StatusInternalServerError)
			}
		}
		end := time.Now()
		took := end.Sub(start)
		status, route, method := c.Response().StatusCode(), routeOf(c), methodOf(c)
		cfg.Metrics.ObserveRequest(method, route, status, took)
		if !logged {
			return nil
		}
		account, _ := c.Locals(accountLocal).(string)
		if out == nil {
			logThroughSlog(c, log, method, route, status, took, account)
			return nil
		}
		line := accessLine{at: end, method: method, path: loggedPath(c.Path(), route), route: route,
			status: status, took: took, bytes: bodySize(c), account: account, requestID: id}
		line.client, line.clientName = clientOf(c, cfg.TrustProxies)
		out.write(&line)
		return nil
	}
}

// logThroughSlog writes the access line through a logger NewLogger did
// not make, attribute by attribute.
func logThroughSlog(c *fiber.Ctx, log *slog.Logger, method, route string, status int, took time.Duration, account string) {
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("path", loggedPath(c.Path(), route)),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Float64("duration_ms", float64(took.Microseconds())/1000),
		slog.Int("bytes", bodySize(c)),
		slog.String("client", c.IP()),
	}
	if account != "" {
		attrs = append(attrs, slog.String("account_id", account))
	}
	log.LogAttrs(c.UserContext(), slog.LevelInfo, "request", attrs...)
}

// clientOf is the client's address as c.IP() names it: the peer's
// address, kept unformatted (formatting it into a buffer of the
// middleware's moved that buffer to the heap, an allocation per request),
// or, when a proxy may name the client, c.IP()'s string.
func clientOf(c *fiber.Ctx, trustProxies bool) (netip.Addr, string) {
	if trustProxies {
		return netip.Addr{}, c.IP()
	}
	ip, ok := netip.AddrFromSlice(c.Context().RemoteIP())
	if !ok {
		return netip.Addr{}, c.IP()
	}
	return ip.Unmap(), ""
}

// routeOf is the pattern of the route that answered. A request stopped by
// middleware before its route (a refused API key) carries the prefix that
// middleware was mounted on (/api/v1, or / for the dashboard's); one that
// fell through every route, unmatched.
func routeOf(c *fiber.Ctx) string {
	r := c.Route()
	if through, _ := c.Locals(unmatchedLocal).(bool); through || len(r.Handlers) == 0 {
		return unmatched
	}
	return r.Path
}

// methodOf returns the method as one of fiber's constants: fiber's string
// is reused after the request, and a metric label outlives it.
func methodOf(c *fiber.Ctx) string {
	m := c.Method()
	for _, known := range fiber.DefaultMethods {
		if m == known {
			return known
		}
	}
	return "OTHER"
}

// bodySize is the size of the answer's body without reading a streamed
// one (static files) into memory.
func bodySize(c *fiber.Ctx) int {
	res := c.Response()
	if res.IsBodyStream() {
		return max(res.Header.ContentLength(), 0)
	}
	return len(res.Body())
}

// oneTimeLinks are the paths whose last segment is a one-time token (a
// setup, reset, email or invitation link): logs would hand out links that
// still work.
var oneTimeLinks = []string{"/setup/", "/reset-password/", "/confirm-email/", "/cancel-email-change/", "/invitations/"}

// loggedPath is path as the access log writes it: a route's :token
// parameter, and the rest of any one-time link path, is redacted, whether
// or not the path matched its route.
func loggedPath(path, route string) string {
	if strings.Contains(route, ":token") {
		return strings.ReplaceAll(route, ":token", "REDACTED")
	}
	for _, p := range oneTimeLinks {
		if strings.HasPrefix(path, p) && len(path) > len(p) {
			return p + "REDACTED"
		}
	}
	return path
}

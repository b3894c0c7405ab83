// Package handlers builds the HTTP application: the JSON API under
// /api/v1 (handlers/api) and the dashboard (handlers/web), over one
// models.Store.
package handlers

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"cloudplane/handlers/api"
	"cloudplane/handlers/metrics"
	"cloudplane/handlers/observe"
	"cloudplane/handlers/web"
	"cloudplane/models"
)

// Config is what the HTTP layer needs from the operator.
type Config struct {
	Store  *models.Store
	Log    *slog.Logger
	Limits api.Limits
	// SignIn throttles the dashboard: password attempts and signed-in
	// users' writes.
	SignIn web.Limits
	// TrustedProxies are the addresses (or CIDR blocks) of reverse proxies
	// whose ProxyHeader names the client. Without them the client is the
	// peer of the connection, and the header is ignored.
	TrustedProxies []string
	// ProxyHeader carries the client address set by a trusted proxy. The
	// proxy must overwrite it, not append to it (X-Real-IP in nginx).
	ProxyHeader string
	// Metrics records requests and sign-in failures; nil switches them off.
	Metrics *metrics.Metrics
	// NoAccessLog switches the access log off (--access-log=false).
	NoAccessLog bool
	// Dependencies are checked by /readyz besides the database.
	Dependencies []Dependency
	// MailLinksOnPage shows an inviting owner the invitation link once,
	// to copy: mail is only written to the log (no --smtp-url).
	MailLinksOnPage bool
	// RelyingParty is who passkeys are made for (from --base-url).
	RelyingParty models.RelyingParty
	// SSO is the dashboard's OpenID Connect client; nil without providers.
	SSO *web.SSO

	// RequestTimeout bounds every request, the database calls it makes
	// included (DefaultRequestTimeout when 0).
	RequestTimeout time.Duration
	// Stopping, when done, ends every request still running: the server's
	// drain period is over. Nil means never.
	Stopping context.Context
	// MaxInFlight is how many requests run their handlers at once; more
	// wait their turn (DefaultInFlightPerCPU per CPU when 0).
	MaxInFlight int
	// MaxUploads is how many upload bodies are received at once, apart
	// from MaxInFlight; more wait their turn within RequestTimeout
	// (api.DefaultUploadsInFlight when 0).
	MaxUploads int
	// UploadProgressTimeout is how long an upload's body may go without a
	// byte arriving (api.DefaultUploadProgressTimeout when 0).
	UploadProgressTimeout time.Duration
	// ReadTimeout is the time a client has to send a request, header and
	// body; IdleTimeout, how long a kept-alive connection may wait for its
	// next request. Zero means the defaults below.
	ReadTimeout, IdleTimeout time.Duration

	// extraAPIRoutes lets this package's tests mount routes (one that
	// panics) under /api/v1 before the catch-all.
	extraAPIRoutes func(fiber.Router)
}

// HeaderLimit is the largest request head (request line and headers)
// accepted: room for long cookies and tokens, four times fasthttp's
// default. Beyond it the answer is 431.
const HeaderLimit = 16 << 10

// BodyLimit is the largest request body accepted.
const BodyLimit = 1 << 20

// New builds the Fiber application with every route.
func New(cfg Config) *fiber.App {
	cfg = withDefaults(cfg)
	cfg.Log = observe.Contextual(cfg.Log)
	app := fiber.New(fiber.Config{
		AppName:   "cloudplane",
		BodyLimit: BodyLimit,
		// Paths are case-sensitive (RFC 3986 §6.2.2.1): /API/V1/regions
		// is no route, and apiNoRoute answers it as the API's 404.
		CaseSensitive: true,
		// A connection that sends its request slowly, or keeps silent
		// between requests, holds a file descriptor: both are bounded.
		ReadTimeout:           cfg.ReadTimeout,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           cfg.IdleTimeout,
		DisableStartupMessage: true,
		ErrorHandler:          errorHandler(cfg.Log),
		ReadBufferSize:        HeaderLimit,
		// Upload bodies are stored as they arrive; bufferBody reads every
		// other body (and parses a multipart form) before routing, within
		// the limit uploadLimits chose.
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		// Per-address limits (failed API keys, sign-ins) must see the real
		// client behind a proxy, and only a trusted proxy may name it. The
		// check is always on: with it off, Fiber trusts every peer's
		// X-Forwarded-Proto and X-Forwarded-Host (c.Protocol, c.Hostname),
		// so any client could mark its cookies Secure or pick the host.
		EnableTrustedProxyCheck: true,
		TrustedProxies:          cfg.TrustedProxies,
		ProxyHeader:             proxyHeader(cfg),
		EnableIPValidation:      true,
	})
	guard := api.NewGuard(cfg.Store, cfg.Limits, cfg.Log)
	app.Use(observe.Middleware(observe.Config{Log: cfg.Log, Metrics: cfg.Metrics,
		TrustProxies: len(cfg.TrustedProxies) > 0, NoAccessLog: cfg.NoAccessLog}))
	app.Use(describeRateLimits(guard)) // second: every answer below has them
	app.Use(refuseOverCap)             // connections past LimitPerAddress's cap
	app.Use(recover.New(recover.Config{
		EnableStackTrace: true,
		StackTraceHandler: func(c *fiber.Ctx, e any) {
			cfg.Log.ErrorContext(c.UserContext(), "panic", "path", c.Path(), "panic", fmt.Sprint(e), "stack", string(debug.Stack()))
		},
	}))
	app.Use(deadline(cfg.Stopping, cfg.RequestTimeout))
	app.Server().HeaderReceived = refuseAmbiguousFraming(uploadLimits(cfg.ReadTimeout, liveSession(cfg.Store), verifyUpload(cfg.Store)))
	routes(app, cfg, guard)
	guardServer(app, cfg.Log, guard)
	return app
}

// Defaults for the connection timeouts: a request (1 MiB at most) has
// 15 s to arrive, a kept-alive connection may idle for a minute.
const (
	DefaultReadTimeout = 15 * time.Second
	DefaultIdleTimeout = time.Minute
)

func withDefaults(cfg Config) Config {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Stopping == nil {
		cfg.Stopping = context.Background()
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	return cfg
}

func proxyHeader(cfg Config) string {
	if len(cfg.TrustedProxies) == 0 {
		return ""
	}
	if cfg.ProxyHeader == "" {
		// Not X-Forwarded-For: its first entry is whatever the client sent
		// when a proxy appends to it.
		return "X-Real-IP"
	}
	return cfg.ProxyHeader
}

// errorHandler is the single place failures become responses: the JSON
// envelope under /api/, an error page elsewhere.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		if isAPIPath(c.Path()) || isTransferPath(c.Path()) {
			return api.WriteError(c, log, err)
		}
		return web.ErrorPage(c, log, err)
	}
}

// isAPIPath matches /api and what is under it in any case: a client that
// wrote /API/v1 is an API client all the same, and gets the envelope.
func isAPIPath(p string) bool {
	const prefix = "/api"
	return len(p) >= len(prefix) && strings.EqualFold(p[:len(prefix)], prefix) && (len(p) == len(prefix) || p[len(prefix)] == '/')
}

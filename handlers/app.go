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
	"cloudplane/handlers/web"
	"cloudplane/models"
)

// Config is what the HTTP layer needs from the operator.
type Config struct {
	Store  *models.Store
	Log    *slog.Logger
	Limits api.Limits
	// SignIn throttles dashboard sign-in attempts.
	SignIn web.Limits
	// TrustedProxies are the addresses (or CIDR blocks) of reverse proxies
	// whose ProxyHeader names the client. Without them the client is the
	// peer of the connection, and the header is ignored.
	TrustedProxies []string
	// ProxyHeader carries the client address set by a trusted proxy. The
	// proxy must overwrite it, not append to it (X-Real-IP in nginx).
	ProxyHeader string

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
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	app := fiber.New(fiber.Config{
		AppName:               "cloudplane",
		BodyLimit:             BodyLimit,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           120 * time.Second,
		DisableStartupMessage: true,
		ErrorHandler:          errorHandler(cfg.Log),
		ReadBufferSize:        HeaderLimit,
		// Per-address limits (failed API keys, sign-ins) must see the real
		// client behind a proxy, and only a trusted proxy may name it.
		EnableTrustedProxyCheck: len(cfg.TrustedProxies) > 0,
		TrustedProxies:          cfg.TrustedProxies,
		ProxyHeader:             proxyHeader(cfg),
		EnableIPValidation:      true,
	})
	app.Use(recover.New(recover.Config{
		EnableStackTrace: true,
		StackTraceHandler: func(c *fiber.Ctx, e any) {
			cfg.Log.Error("panic", "path", c.Path(), "panic", fmt.Sprint(e), "stack", string(debug.Stack()))
		},
	}))
	routes(app, cfg)
	guardServer(app, cfg.Log)
	return app
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
		if isAPIPath(c.Path()) {
			return api.WriteError(c, log, err)
		}
		return web.ErrorPage(c, log, err)
	}
}

func isAPIPath(p string) bool { return p == "/api" || strings.HasPrefix(p, "/api/") }

// health answers 200 when the database answers, 503 otherwise.
func health(store *models.Store) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		if err := store.Ping(ctx); err != nil {
			return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "unavailable"})
		}
		return c.JSON(fiber.Map{"status": "ok"})
	}
}

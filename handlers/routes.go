package handlers

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/api"
	"cloudplane/handlers/web"
)

// routes is the one route table: every API and page route with its
// middleware.
func routes(app *fiber.App, cfg Config) {
	app.Get("/healthz", health(cfg.Store))

	a := api.New(cfg.Store)
	guard := api.NewGuard(cfg.Store, cfg.Limits, cfg.Log)
	v1 := app.Group("/api/v1", api.RequestIDs, guard.Authenticate)

	v1.Get("/regions", a.Regions)

	if cfg.extraAPIRoutes != nil {
		cfg.extraAPIRoutes(v1)
	}

	// Anything else under /api answers the JSON envelope, never HTML. (Not
	// app.Use("/api"): a prefix match would swallow /api-keys.)
	app.All("/api/*", api.RequestIDs, api.NoRoute)

	// The dashboard. Every page and asset gets the security headers; every
	// page knows who is signed in (404s too); every state-changing request
	// needs the CSRF token.
	w := web.New(web.Config{Store: cfg.Store, Log: cfg.Log, Limits: cfg.SignIn})
	app.Use(web.SecurityHeaders)
	app.Get("/static/*", web.Static)
	app.Use(w.LoadSession, web.CSRF)

	app.Get("/setup/:token", w.SetupForm)
	app.Post("/setup/:token", w.Setup)
	app.Get("/sign-in", w.SignInForm)
	app.Post("/sign-in", w.SignIn)
	app.Post("/sign-out", web.RequireUser, w.SignOut)

	app.Get("/", web.RequireUser, w.Home)
	app.Get("/account", web.RequireUser, w.Account)
	app.Post("/account/password", web.RequireUser, w.ChangePassword)
	app.Get("/api-keys", web.RequireUser, w.APIKeys)
	app.Post("/api-keys", web.RequireUser, w.CreateAPIKey)
	app.Get("/api-keys/:id/revoke", web.RequireUser, w.ConfirmRevokeAPIKey)
	app.Post("/api-keys/:id/revoke", web.RequireUser, w.RevokeAPIKey)
}

package handlers

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/api"
)

// routes is the one route table: every API and page route with its
// middleware.
func routes(app *fiber.App, cfg Config) {
	app.Get("/healthz", health(cfg.Store))

	a := api.New(cfg.Store)
	guard := api.NewGuard(cfg.Store, cfg.Limits, cfg.Log)
	v1 := app.Group("/api/v1", api.RequestIDs, guard.Authenticate)

	v1.Get("/regions", a.Regions)
	v1.Get("/tickets", a.Tickets)
	v1.Post("/tickets", a.CreateTicket)
	v1.Get("/tickets/:ticket_id", a.Ticket)
	v1.Patch("/tickets/:ticket_id", a.UpdateTicket)

	if cfg.extraAPIRoutes != nil {
		cfg.extraAPIRoutes(v1)
	}

	// Anything else under /api answers the JSON envelope, never HTML.
	app.Use("/api", api.RequestIDs, api.NoRoute)
}

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

	v1.Get("/instance-types", a.InstanceTypes)
	v1.Get("/instances", a.Instances)
	v1.Get("/instances/:id", a.Instance)
	v1.Post("/instances/:id", a.UpdateInstance)
	v1.Post("/instance-operations/launch", guard.LaunchLimit, a.LaunchInstances)
	v1.Post("/instance-operations/terminate", a.TerminateInstances)
	v1.Post("/instance-operations/restart", a.RestartInstances)

	v1.Get("/ssh-keys", a.SSHKeys)
	v1.Post("/ssh-keys", a.CreateSSHKey)
	v1.Delete("/ssh-keys/:id", a.DeleteSSHKey)

	if cfg.extraAPIRoutes != nil {
		cfg.extraAPIRoutes(v1)
	}

	// Anything else under /api answers the JSON envelope, never HTML.
	app.Use("/api", api.RequestIDs, api.NoRoute)
}

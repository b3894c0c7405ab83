// Package api is the JSON front door under /api/v1, compatible with the
// Lambda Cloud API 1.10.0. Handlers decode into the domain's input types,
// call one models.Store operation and encode its result; rules, audit
// events and transactions live in models.
package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// Handlers serves the API's endpoints.
type Handlers struct {
	store *models.Store
}

// New returns the API handlers over store.
func New(store *models.Store) *Handlers { return &Handlers{store: store} }

// NoRoute answers method and path pairs under /api that no route serves,
// naming both: a wrong method on a known path lands here too.
func NoRoute(c *fiber.Ctx) error {
	return &models.Error{Code: models.CodeRouteNotFound,
		Message:    "No route serves " + c.Method() + " " + c.Path(),
		Suggestion: "Check the method and path against the API reference"}
}

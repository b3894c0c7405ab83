package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

type instanceTypesItemJSON struct {
	InstanceType models.InstanceType `json:"instance_type"`
	Regions      []models.Region     `json:"regions_with_capacity_available"`
}

// InstanceTypes answers the catalogue keyed by type name, each type with
// the regions where it can be launched now.
func (h *Handlers) InstanceTypes(c *fiber.Ctx) error {
	types, err := h.store.AvailableInstanceTypes(c.UserContext())
	if err != nil {
		return err
	}
	out := make(map[string]instanceTypesItemJSON, len(types))
	for _, t := range types {
		out[t.Name] = instanceTypesItemJSON{InstanceType: t.InstanceType, Regions: t.Regions}
	}
	return ok(c, out)
}

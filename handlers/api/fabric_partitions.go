package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// fabricPartitionJSON is the reference's FabricPartition.
type fabricPartitionJSON struct {
	ID          string        `json:"id"`
	Name        string        `json:"name"`
	Created     string        `json:"created"`
	WorkspaceID string        `json:"workspace_id"`
	Region      models.Region `json:"region"`
}

func newFabricPartitionJSON(p *models.FabricPartition) fabricPartitionJSON {
	return fabricPartitionJSON{ID: p.ID, Name: p.Name, Created: p.CreatedAt.UTC().Format(time.RFC3339),
		WorkspaceID: p.WorkspaceID, Region: p.Region()}
}

// CreateFabricPartition creates a partition from {name, region,
// workspace_id?} (POST /fabric).
func (h *Handlers) CreateFabricPartition(c *fiber.Ctx) error {
	var in models.CreateFabricPartitionInput
	if err := decode(c, &in); err != nil {
		return err
	}
	p, err := h.store.CreateFabricPartition(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	return ok(c, newFabricPartitionJSON(p))
}

// RenameFabricPartition renames a partition from {name} (POST /fabric/{id}).
func (h *Handlers) RenameFabricPartition(c *fiber.Ctx) error {
	var in models.RenameFabricPartitionInput
	if err := decode(c, &in); err != nil {
		return err
	}
	p, err := h.store.RenameFabricPartition(c.UserContext(), Actor(c), c.Params("id"), in)
	if err != nil {
		return err
	}
	return ok(c, newFabricPartitionJSON(p))
}

// DeleteFabricPartition deletes a partition and answers the reference's
// empty object (DELETE /fabric/{id}).
func (h *Handlers) DeleteFabricPartition(c *fiber.Ctx) error {
	if _, err := h.store.DeleteFabricPartition(c.UserContext(), Actor(c), c.Params("id")); err != nil {
		return err
	}
	return ok(c, struct{}{})
}

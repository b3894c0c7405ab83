package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// LaunchInstances launches instances and answers their ids.
func (h *Handlers) LaunchInstances(c *fiber.Ctx) error {
	var in models.LaunchInstancesInput
	if err := decode(c, &in); err != nil {
		return err
	}
	ids, err := h.store.LaunchInstances(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	return ok(c, fiber.Map{"instance_ids": ids})
}

// TerminateInstances terminates instances and answers them.
func (h *Handlers) TerminateInstances(c *fiber.Ctx) error {
	return h.instancesOperation(c, "terminated_instances", h.store.TerminateInstances)
}

// RestartInstances restarts instances and answers them.
func (h *Handlers) RestartInstances(c *fiber.Ctx) error {
	return h.instancesOperation(c, "restarted_instances", h.store.RestartInstances)
}

type instancesOp func(context.Context, models.Actor, models.InstanceIDsInput) ([]models.InstanceDetail, error)

// instancesOperation decodes {"instance_ids": [...]}, runs op and answers
// the instances it returns under key.
func (h *Handlers) instancesOperation(c *fiber.Ctx, key string, op instancesOp) error {
	var in models.InstanceIDsInput
	if err := decode(c, &in); err != nil {
		return err
	}
	ds, err := op(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	return ok(c, fiber.Map{key: newInstancesJSON(ds)})
}

package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

type rulesetJSON struct {
	ID          string                `json:"id"`
	Name        string                `json:"name"`
	Region      models.Region         `json:"region"`
	Rules       []models.FirewallRule `json:"rules"`
	Created     string                `json:"created"`
	InstanceIDs []string              `json:"instance_ids"`
}

func newRulesetJSON(r *models.FirewallRulesetView) rulesetJSON {
	return rulesetJSON{ID: r.ID, Name: r.Name, Region: r.Region(), Rules: r.Rules,
		Created: r.CreatedAt.UTC().Format(time.RFC3339), InstanceIDs: r.InstanceIDs}
}

// FirewallRulesets lists the account's rulesets.
func (h *Handlers) FirewallRulesets(c *fiber.Ctx) error {
	list, err := h.store.FirewallRulesets(c.UserContext(), Actor(c))
	if err != nil {
		return err
	}
	out := make([]rulesetJSON, len(list))
	for i := range list {
		out[i] = newRulesetJSON(&list[i])
	}
	return ok(c, out)
}

// FirewallRuleset answers one ruleset, with its ETag.
func (h *Handlers) FirewallRuleset(c *fiber.Ctx) error {
	r, err := h.store.FirewallRuleset(c.UserContext(), Actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	setETag(c, r.Version)
	return ok(c, newRulesetJSON(r))
}

// CreateFirewallRuleset creates a ruleset from {name, region, rules}.
func (h *Handlers) CreateFirewallRuleset(c *fiber.Ctx) error {
	var in models.CreateFirewallRulesetInput
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := h.store.CreateFirewallRuleset(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	setETag(c, r.Version)
	return ok(c, newRulesetJSON(r))
}

// UpdateFirewallRuleset changes a ruleset's name and/or rules, if If-Match
// (when sent) still holds, and answers it with its new ETag.
func (h *Handlers) UpdateFirewallRuleset(c *fiber.Ctx) error {
	pre, err := ifMatch(c)
	if err != nil {
		return err
	}
	in := models.UpdateFirewallRulesetInput{IfMatch: pre}
	if err := decode(c, &in); err != nil {
		return err
	}
	r, err := h.store.UpdateFirewallRuleset(c.UserContext(), Actor(c), c.Params("id"), in)
	if err != nil {
		return err
	}
	setETag(c, r.Version)
	return ok(c, newRulesetJSON(r))
}

// DeleteFirewallRuleset deletes a ruleset, if If-Match (when sent) still
// holds, and answers an empty object.
func (h *Handlers) DeleteFirewallRuleset(c *fiber.Ctx) error {
	pre, err := ifMatch(c)
	if err != nil {
		return err
	}
	if _, err := h.store.DeleteFirewallRuleset(c.UserContext(), Actor(c), c.Params("id"), pre); err != nil {
		return err
	}
	return ok(c, struct{}{})
}

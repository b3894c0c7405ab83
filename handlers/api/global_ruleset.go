package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

type globalRulesetJSON struct {
	ID    string                `json:"id"`
	Name  string                `json:"name"`
	Rules []models.FirewallRule `json:"rules"`
}

func newGlobalRulesetJSON(rules []models.FirewallRule) globalRulesetJSON {
	return globalRulesetJSON{ID: models.GlobalRulesetID, Name: models.GlobalRulesetName, Rules: rules}
}

// GlobalFirewallRuleset answers the account's global ruleset.
func (h *Handlers) GlobalFirewallRuleset(c *fiber.Ctx) error {
	rules, err := h.store.GlobalFirewallRules(c.UserContext(), Actor(c))
	if err != nil {
		return err
	}
	return ok(c, newGlobalRulesetJSON(rules))
}

// UpdateGlobalFirewallRuleset replaces the global ruleset's rules when
// {"rules": [...]} is given.
func (h *Handlers) UpdateGlobalFirewallRuleset(c *fiber.Ctx) error {
	var in models.UpdateGlobalRulesetInput
	if err := decode(c, &in); err != nil {
		return err
	}
	rules, err := h.store.UpdateGlobalFirewallRuleset(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	return ok(c, newGlobalRulesetJSON(rules))
}

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

// GlobalFirewallRuleset answers the account's global ruleset, with its
// ETag.
func (h *Handlers) GlobalFirewallRuleset(c *fiber.Ctx) error {
	l, err := h.store.GlobalFirewallRules(c.UserContext(), Actor(c))
	if err != nil {
		return err
	}
	setETag(c, l.Version)
	return ok(c, newGlobalRulesetJSON(l.Rules))
}

// UpdateGlobalFirewallRuleset replaces the global ruleset's rules when
// {"rules": [...]} is given, if If-Match (when sent) still holds, and
// answers the ruleset with its new ETag.
func (h *Handlers) UpdateGlobalFirewallRuleset(c *fiber.Ctx) error {
	pre, err := ifMatch(c)
	if err != nil {
		return err
	}
	in := models.UpdateGlobalRulesetInput{IfMatch: pre}
	if err := decode(c, &in); err != nil {
		return err
	}
	l, err := h.store.UpdateGlobalFirewallRuleset(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	setETag(c, l.Version)
	return ok(c, newGlobalRulesetJSON(l.Rules))
}

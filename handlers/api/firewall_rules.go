package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// InboundFirewallRules lists the account's inbound firewall rules.
func (h *Handlers) InboundFirewallRules(c *fiber.Ctx) error {
	rules, err := h.store.InboundFirewallRules(c.UserContext(), Actor(c))
	if err != nil {
		return err
	}
	return ok(c, rules)
}

// ReplaceInboundFirewallRules replaces the account's inbound rules with
// the list in {"data": [...]} and answers the new list.
func (h *Handlers) ReplaceInboundFirewallRules(c *fiber.Ctx) error {
	var in models.ReplaceInboundRulesInput
	if err := decode(c, &in); err != nil {
		return err
	}
	rules, err := h.store.ReplaceInboundFirewallRules(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	return ok(c, rules)
}

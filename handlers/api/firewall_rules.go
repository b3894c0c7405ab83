package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// InboundFirewallRules lists the account's inbound firewall rules, with
// their ETag.
func (h *Handlers) InboundFirewallRules(c *fiber.Ctx) error {
	l, err := h.store.InboundFirewallRules(c.UserContext(), Actor(c))
	if err != nil {
		return err
	}
	setETag(c, l.Version)
	return ok(c, l.Rules)
}

// ReplaceInboundFirewallRules replaces the account's inbound rules with
// the list in {"data": [...]}, if If-Match (when sent) still holds, and
// answers the new list and ETag.
func (h *Handlers) ReplaceInboundFirewallRules(c *fiber.Ctx) error {
	pre, err := ifMatch(c)
	if err != nil {
		return err
	}
	in := models.ReplaceInboundRulesInput{IfMatch: pre}
	if err := decode(c, &in); err != nil {
		return err
	}
	l, err := h.store.ReplaceInboundFirewallRules(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	setETag(c, l.Version)
	return ok(c, l.Rules)
}

package api

import (
	"strconv"
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
	body, err := h.store.FirewallRulesetsEncoded(c.UserContext(), Actor(c), rulesetListJSON)
	if err != nil {
		return err
	}
	return sendJSON(c, body)
}

// rulesetListJSON is the list's body, which the store keeps with the list
// it encodes until the list changes.
var rulesetListJSON = models.NewListEncoding(func(list []models.FirewallRulesetView) []byte {
	return appendRulesetList(make([]byte, 0, 512+400*len(list)), list)
})

// appendRulesetList appends the list's body, {"data": [...]}, as ok would
// write it.
func appendRulesetList(dst []byte, list []models.FirewallRulesetView) []byte {
	dst = append(dst, `{"data":[`...)
	for i := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendRulesetJSON(dst, &list[i])
	}
	return append(dst, ']', '}')
}

// appendRulesetJSON appends r as encoding/json marshals newRulesetJSON(r),
// without reflection or the intermediate struct.
func appendRulesetJSON(dst []byte, r *models.FirewallRulesetView) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, r.ID)
	dst = append(dst, `,"name":`...)
	dst = appendJSONString(dst, r.Name)
	region := r.Region()
	dst = append(dst, `,"region":{"name":`...)
	dst = appendJSONString(dst, region.Name)
	dst = append(dst, `,"description":`...)
	dst = appendJSONString(dst, region.Description)
	dst = append(dst, `},"rules":`...)
	dst = appendFirewallRules(dst, r.Rules)
	// RFC 3339 in UTC is digits, '-', ':', 'T' and 'Z': nothing to escape.
	dst = append(dst, `,"created":"`...)
	dst = r.CreatedAt.UTC().AppendFormat(dst, time.RFC3339)
	dst = append(dst, `","instance_ids":`...)
	dst = appendJSONStrings(dst, r.InstanceIDs)
	return append(dst, '}')
}

// appendFirewallRules appends rules as encoding/json marshals them: null
// for nil, and port_range left out when empty (omitempty).
func appendFirewallRules(dst []byte, rules []models.FirewallRule) []byte {
	if rules == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i := range rules {
		if i > 0 {
			dst = append(dst, ',')
		}
		r := &rules[i]
		dst = append(dst, `{"protocol":`...)
		dst = appendJSONString(dst, r.Protocol)
		if len(r.PortRange) > 0 {
			dst = append(dst, `,"port_range":[`...)
			for j, p := range r.PortRange {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = strconv.AppendInt(dst, int64(p), 10)
			}
			dst = append(dst, ']')
		}
		dst = append(dst, `,"source_network":`...)
		dst = appendJSONString(dst, r.SourceNetwork)
		dst = append(dst, `,"description":`...)
		dst = appendJSONString(dst, r.Description)
		dst = append(dst, '}')
	}
	return append(dst, ']')
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

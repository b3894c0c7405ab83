package web

import (
	"fmt"
	"strings"

	"cloudplane/models"
	"cloudplane/views"
)

// firstRunChecklist is the overview's getting-started list, from what
// the account holds; the view hides it once every step is done.
func firstRunChecklist(o *models.AccountOverview) []views.ChecklistStep {
	return []views.ChecklistStep{
		{Label: "Generate an API key", Text: "To use the API from scripts.", Href: "/api-keys", Done: o.APIKeys > 0},
		{Label: "Add an SSH key", Text: "To sign in to your instances.", Href: "/ssh-keys", Done: o.SSHKeys > 0},
		{Label: "Launch your first instance", Text: "Choose a region, a type and a key.", Href: "/instances/launch",
			Done: o.InstancesEver > 0},
		{Label: "Set up a webhook endpoint", Text: "To hear about tickets as they change.", Href: "/webhook",
			Done: o.WebhookEndpoints > 0},
	}
}

// accountQuotaNames name the quotas an account change may carry.
var accountQuotaNames = []struct{ key, name string }{
	{"filesystem_quota", "filesystem quota"},
	{"ruleset_quota", "firewall ruleset quota"},
	{"fabric_partition_quota", "fabric partition quota"},
}

// accountChangeSummary says what support or the operator changed on the
// account and why, from the owner's side: "Support raised your
// filesystem quota to 50: <reason>".
func accountChangeSummary(ev models.AuditEvent, details map[string]any) string {
	who := "The operator"
	if ev.ActorRole != nil && *ev.ActorRole == models.RoleSupport {
		who = "Support"
	}
	previous, _ := details["previous"].(map[string]any)
	var parts []string
	switch details["status"] {
	case models.AccountActive:
		parts = append(parts, "reactivated your account")
	case models.AccountInactive:
		parts = append(parts, "deactivated your account")
	}
	switch details["billing_address_valid"] {
	case true:
		parts = append(parts, "marked your billing address valid")
	case false:
		parts = append(parts, "marked your billing address invalid")
	}
	for _, q := range accountQuotaNames {
		now, ok := details[q.key].(float64)
		if !ok {
			continue
		}
		verb := "set"
		if was, ok := previous[q.key].(float64); ok && was < now {
			verb = "raised"
		} else if ok && was > now {
			verb = "lowered"
		}
		parts = append(parts, fmt.Sprintf("%s your %s to %d", verb, q.name, int64(now)))
	}
	s := "Account changed by " + strings.ToLower(who[:1]) + who[1:]
	if len(parts) > 0 {
		s = who + " " + joinAnd(parts)
	}
	if reason, _ := details["reason"].(string); reason != "" {
		s += ": " + reason
	}
	return s
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

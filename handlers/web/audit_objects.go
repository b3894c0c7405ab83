package web

import (
	"strings"

	"cloudplane/models"
	"cloudplane/views"
)

// objectSummaries say events that are about one object with that object
// in their words: {} stands for the event's first resource, {2} for its
// second (an attachment's ticket). Events not here read as eventSummaries
// say.
var objectSummaries = map[string]string{
	"member sessions_ended": "Sessions of member {} ended",
	"member created":        "Member {} added",
	"member updated":        "Role of member {} changed",
	"member deleted":        "Member {} removed",
	"api_key created":       "API key {} created",
	"api_key deleted":       "API key {} revoked",

	"filesystem created":       "Filesystem {} created",
	"filesystem deleted":       "Filesystem {} deleted",
	"firewall_ruleset created": "Firewall ruleset {} created",
	"firewall_ruleset updated": "Firewall ruleset {} changed",
	"firewall_ruleset deleted": "Firewall ruleset {} deleted",

	"instance launched":   "Instance {} launched",
	"instance terminated": "Instance {} terminated",
	"instance restarted":  "Instance {} restarted",
	"instance updated":    "Instance {} renamed",
	"ssh_key created":     "SSH key {} added",
	"ssh_key deleted":     "SSH key {} deleted",

	"ticket created":             "Support ticket {} opened",
	"ticket updated":             "Support ticket {} updated",
	"ticket assigned":            "Support ticket {} assigned",
	"ticket note_added":          "Internal note added to support ticket {}",
	"ticket_attachment uploaded": "File {} attached to support ticket {2}",
	"ticket_attachment deleted":  "File {} deleted from support ticket {2}",
	"webhook created":            "Webhook {} set up",
	"webhook updated":            "Webhook {} changed",
	"webhook enabled":            "Webhook {} enabled",
	"webhook disabled":           "Webhook {} disabled",
	"webhook deleted":            "Webhook {} deleted",
	"webhook token_rotated":      "Token of webhook {} rotated",
	"webhook secret_rotated":     "Signing secret of webhook {} rotated",
	"webhook secret_revealed":    "Signing secret of webhook {} revealed",
	"webhook tested":             "Test event sent to webhook {}",

	"fabric_partition created": "Fabric partition {} created",
	"fabric_partition updated": "Fabric partition {} renamed",
	"fabric_partition deleted": "Fabric partition {} deleted",
	"sso_domain created":       "Single sign-on domain {} linked",
	"sso_domain deleted":       "Single sign-on domain {} unlinked",
}

// objectLinks are the pages objects that still exist are shown on, by
// kind (an attachment's is its ticket's).
var objectLinks = map[string]func(o models.AuditObject) string{
	"instance":          func(o models.AuditObject) string { return "/instances/" + o.ID },
	"filesystem":        func(models.AuditObject) string { return "/filesystems" },
	"ssh_key":           func(models.AuditObject) string { return "/ssh-keys" },
	"fabric_partition":  func(models.AuditObject) string { return "/fabric" },
	"firewall_ruleset":  func(o models.AuditObject) string { return "/firewall/rulesets/" + o.ID },
	"api_key":           func(models.AuditObject) string { return "/api-keys" },
	"ticket":            func(o models.AuditObject) string { return "/tickets/" + o.ID },
	"ticket_attachment": func(o models.AuditObject) string { return "/tickets/" + o.Parent },
	"webhook":           func(o models.AuditObject) string { return "/webhook/" + o.ID },
	"user":              func(models.AuditObject) string { return "/members" },
}

// detailNames are the additional details that name an event's first
// object when it is gone, in order of preference.
var detailNames = []string{"name", "email", "url", "subject", "filename"}

// describeEvent says what ev records in words, naming its objects and
// linking those objects that still exist (objects, from
// Store.AuditObjects; nil names them from the event alone).
func describeEvent(ev models.AuditEvent, objects map[string]models.AuditObject) []views.TextPart {
	action := ev.Action
	details := ev.AdditionalDetails.Map()
	if ev.ResourceName == "webhook" { // older events say "updated" for every change
		action = models.WebhookAuditAction(action, details)
	}
	key := ev.ResourceName + " " + action
	pattern, ok := objectSummaries[key]
	if !ok || len(ev.ResourceLRNs) == 0 {
		return []views.TextPart{{Text: plainSummary(ev)}}
	}
	var parts []views.TextPart
	for i, lrn := range ev.ResourceLRNs[:min(2, len(ev.ResourceLRNs))] {
		mark := "{}"
		if i == 1 {
			mark = "{2}"
		}
		before, after, found := strings.Cut(pattern, mark)
		if !found {
			continue
		}
		parts = append(parts, views.TextPart{Text: before}, objectPart(lrn, i == 0, details, objects))
		pattern = after
	}
	parts = append(parts, views.TextPart{Text: pattern})
	return parts
}

// objectPart names the object lrn names: as it is called now, else as
// the event's details called it (first says they are about it), else by
// its short id; with a link when it still exists.
func objectPart(lrn string, first bool, details map[string]any, objects map[string]models.AuditObject) views.TextPart {
	kind, id, _ := strings.Cut(strings.TrimPrefix(lrn, "lrn:cloud:"), ":")
	o, exists := objects[lrn]
	name := o.Name
	if !exists && first {
		for _, key := range detailNames {
			if v, ok := details[key].(string); ok && v != "" {
				name = v
				break
			}
		}
	}
	var p views.TextPart
	switch {
	case name == "" && models.IsID(id):
		p.Text = views.ShortID(id)
	case name == "":
		p.Text = id
	case kind == "webhook" || kind == "user" || strings.Contains(name, "@"):
		p.Text = name
	default:
		p.Text = "“" + name + "”"
	}
	if link, ok := objectLinks[kind]; ok && exists {
		p.Href = link(o)
	}
	return p
}

// partsText is a description as plain text.
func partsText(parts []views.TextPart) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// eventSummary says what ev records as plain text, naming its objects as
// the event does (for the overview and the export).
func eventSummary(ev models.AuditEvent) string { return partsText(describeEvent(ev, nil)) }

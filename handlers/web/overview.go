package web

import (
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// recentEvents is how many audit events the overview shows.
const recentEvents = 10

// Home is the signed-in user's home page: the overview for an owner, and
// for support staff a page saying what they can do.
func (h *Handlers) Home(c *fiber.Ctx) error {
	a := actor(c)
	if a.IsSupport() {
		return h.supportHome(c)
	}
	o, err := h.store.AccountOverview(c.UserContext(), a)
	if err != nil {
		return err
	}
	events, err := h.store.LatestAuditEvents(c.UserContext(), a, recentEvents)
	if err != nil {
		return err
	}
	v := views.Overview{Alerts: accountAlerts(o), Resources: resourceCounts(o), Checklist: firstRunChecklist(o)}
	spend, err := h.store.MonthSpend(c.UserContext(), a, "")
	if err != nil {
		return err
	}
	v.Spend = &views.MonthSpend{Month: spend.Month, Actual: spend.ActualCents, Forecast: spend.ForecastCents}
	webhook, err := h.overviewWebhookAlerts(c)
	if err != nil {
		return err
	}
	v.Alerts = append(v.Alerts, webhook...)
	budget, err := h.overviewBudgetAlerts(c)
	if err != nil {
		return err
	}
	v.Alerts = append(v.Alerts, budget...)
	emails, err := h.actorEmails(c, a, events)
	if err != nil {
		return err
	}
	objects, err := h.store.AuditObjects(c.UserContext(), a, events)
	if err != nil {
		return err
	}
	for _, ev := range events {
		v.Events = append(v.Events, views.Event{Time: ev.EventTime, Summary: partsText(describeEvent(ev, objects)),
			Actor: eventActor(ev, a, emails)})
	}
	return h.page(c, fiber.StatusOK, "Overview", views.NavOverview, views.OverviewPage(v))
}

// resourceCounts are the overview's tiles. A resource gets its Href when
// its pages exist.
func resourceCounts(o *models.AccountOverview) []views.ResourceCount {
	return []views.ResourceCount{
		{Label: "Instances", Count: o.Instances, Note: "Running", Href: "/instances"},
		{Label: "Filesystems", Count: o.Filesystems, Quota: o.Account.FilesystemQuota, HasQuota: true, Href: "/filesystems"},
		{Label: "Firewall rulesets", Count: o.Rulesets, Quota: o.Account.RulesetQuota, HasQuota: true, Href: "/firewall/rulesets"},
		{Label: "SSH keys", Count: o.SSHKeys, Href: "/ssh-keys"},
		{Label: "Fabric partitions", Count: o.FabricPartitions, Quota: o.Account.FabricPartitionQuota, HasQuota: true, Href: "/fabric"},
		{Label: "API keys", Count: o.APIKeys, Href: "/api-keys"},
	}
}

// accountAlerts warns about what stops or will soon stop the API working.
func accountAlerts(o *models.AccountOverview) []views.Alert {
	var alerts []views.Alert
	if !o.Account.Active() {
		alerts = append(alerts, views.Alert{Kind: views.Danger, Title: "Your account is inactive",
			Text: "The API refuses requests made with your keys. Contact support to reactivate the account.",
			Href: "/tickets/new", Link: "Ask support to reactivate it"})
	}
	if !o.Account.BillingAddressValid {
		alerts = append(alerts, views.Alert{Kind: views.Warning, Title: "Your billing address is invalid",
			Text: "Creating filesystems and launching instances are refused until it is corrected. Contact support to update it.",
			Href: "/tickets/new", Link: "Ask support to correct it"})
	}
	for _, q := range []struct {
		what  string
		used  int64
		quota int
		href  string
	}{
		{"filesystems", o.Filesystems, o.Account.FilesystemQuota, "/filesystems"},
		{"firewall rulesets", o.Rulesets, o.Account.RulesetQuota, "/firewall/rulesets"},
		{"fabric partitions", o.FabricPartitions, o.Account.FabricPartitionQuota, "/fabric"},
	} {
		if !models.NearQuota(q.used, q.quota) {
			continue
		}
		a := views.Alert{Kind: views.Warning, Title: "Close to your " + q.what + " quota",
			Text: fmt.Sprintf("You have %d of %d %s. Delete ones you no longer need, or ask support for a higher quota.", q.used, q.quota, q.what),
			Href: q.href, Link: "See your " + q.what}
		if q.used >= int64(q.quota) {
			a.Title = "Your " + q.what + " quota is reached"
			a.Text = fmt.Sprintf("You have %d of %d %s, so new ones are refused. Delete ones you no longer need, or ask support for a higher quota.", q.used, q.quota, q.what)
			a.Href, a.Link = "/tickets/new", "Ask support for a higher quota"
		}
		alerts = append(alerts, a)
	}
	return alerts
}

// eventSummaries name the events the dashboard knows in words; others
// read "<resource> <action>". Resource pages add theirs here.
var eventSummaries = map[string]string{
	"budget updated":           "Monthly budget changed",
	"budget threshold_reached": "Budget threshold reached",
	"session signed_in":        "Signed in to the dashboard",
	"session signed_out":       "Signed out of the dashboard",
	"session reauthenticated":  "Confirmed identity for a sensitive action",
	"member sessions_ended":    "Member's sessions ended",
	"user created":             "User created",
	"member created":           "Member added",
	"member updated":           "Member's role changed",
	"member deleted":           "Member removed",
	"user updated":             "Password changed",
	"api_key created":          "API key created",
	"api_key deleted":          "API key revoked",
	"account updated":          "Account changed by the operator",

	"user second_factor_enabled":      "Two-factor authentication turned on",
	"user second_factor_disabled":     "Two-factor authentication turned off",
	"user second_factor_reset":        "Two-factor authentication removed by the operator",
	"user recovery_codes_regenerated": "New recovery codes made",
	"user recovery_code_used":         "Recovery code used",
	"account second_factor_required":  "Two-factor authentication requirement changed",

	"filesystem created":              "Filesystem created",
	"filesystem deleted":              "Filesystem deleted",
	"firewall_rules updated":          "Inbound firewall rules changed",
	"firewall_ruleset created":        "Firewall ruleset created",
	"firewall_ruleset updated":        "Firewall ruleset changed",
	"firewall_ruleset deleted":        "Firewall ruleset deleted",
	"global_firewall_ruleset updated": "Global firewall rules changed",

	"instance launched":   "Instance launched",
	"instance terminated": "Instance terminated",
	"instance restarted":  "Instance restarted",
	"instance updated":    "Instance renamed",
	"ssh_key created":     "SSH key added",
	"ssh_key deleted":     "SSH key deleted",

	"ticket created":               "Support ticket opened",
	"ticket updated":               "Support ticket updated",
	"ticket assigned":              "Support ticket assigned",
	"ticket note_added":            "Internal note added to a support ticket",
	"ticket_attachment uploaded":   "File attached to a support ticket",
	"ticket_attachment deleted":    "Ticket attachment deleted",
	"webhook created":              "Webhook set up",
	"webhook updated":              "Webhook changed",
	"webhook enabled":              "Webhook enabled",
	"webhook disabled":             "Webhook disabled",
	"webhook deleted":              "Webhook deleted",
	"webhook token_rotated":        "Webhook token rotated",
	"webhook secret_rotated":       "Webhook signing secret rotated",
	"webhook secret_revealed":      "Webhook signing secret revealed",
	"webhook tested":               "Webhook test event sent",
	"webhook headers_changed":      "Webhook custom headers changed",
	"webhook_delivery redelivered": "Webhook deliveries queued again",

	"fabric_partition created": "Fabric partition created",
	"fabric_partition updated": "Fabric partition renamed",
	"fabric_partition deleted": "Fabric partition deleted",
}

// eventsNamedByID are the resources whose events may not carry a name:
// their summary names the object by its short id instead.
var eventsNamedByID = map[string]bool{"instance": true}

// plainSummary says in words what an audit event records, naming the
// object when the event carries its name or email.
func plainSummary(ev models.AuditEvent) string {
	action := ev.Action
	details := ev.AdditionalDetails.Map()
	if ev.ResourceName == "account" && action == "updated" {
		return accountChangeSummary(ev, details)
	}
	if ev.ResourceName == "webhook" { // older events say "updated" for every change
		action = models.WebhookAuditAction(action, details)
	}
	s, ok := eventSummaries[ev.ResourceName+" "+action]
	if !ok {
		s = views.Capitalize(strings.ReplaceAll(ev.ResourceName+" "+action, "_", " "))
	}
	for _, key := range []string{"name", "email"} {
		if v, ok := details[key].(string); ok && v != "" && ev.ResourceName != "session" {
			return s + ": “" + v + "”"
		}
	}
	if eventsNamedByID[ev.ResourceName] && len(ev.ResourceLRNs) == 1 {
		_, id, _ := strings.Cut(strings.TrimPrefix(ev.ResourceLRNs[0], "lrn:cloud:"), ":")
		return s + ": " + views.ShortID(id)
	}
	return s
}

// eventActor names who caused an event, from the viewer's side. Support
// staff read "Support" to owners; to staff, with the agent's email, which
// emails (from actorEmails) holds by user id.
func eventActor(ev models.AuditEvent, viewer models.Actor, emails map[string]string) string {
	switch {
	case ev.ActorLRN == nil:
		return "cloudplane"
	case ev.ActorUserID() == viewer.UserID && viewer.UserID != "":
		if ev.RequestAPIKeyLRN != nil {
			return "You, with an API key"
		}
		return "You"
	case ev.ActorRole != nil && *ev.ActorRole == models.RoleSupport:
		if email := emails[ev.ActorUserID()]; email != "" {
			return "Support (" + email + ")"
		}
		return "Support"
	case emails[ev.ActorUserID()] != "":
		if ev.RequestAPIKeyLRN != nil {
			return emails[ev.ActorUserID()] + ", with an API key"
		}
		return emails[ev.ActorUserID()]
	case strings.HasPrefix(*ev.ActorLRN, "lrn:cloud:operator:"):
		return "The operator"
	case strings.HasPrefix(*ev.ActorLRN, "lrn:cloud:service:"):
		return "cloudplane"
	}
	return "Another user"
}

// actorEmails names the members behind events, and for a viewer who is
// staff the support staff too (members read "Support").
func (h *Handlers) actorEmails(c *fiber.Ctx, viewer models.Actor, events []models.AuditEvent) (map[string]string, error) {
	return h.store.MemberActorEmails(c.UserContext(), viewer, events)
}

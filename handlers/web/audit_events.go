package web

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// auditResourceTypes are the resource types the audit log's filter
// offers, as <service_name>.<resource_name>. Resource pages add theirs.
var auditResourceTypes = []views.Option{
	{Value: "cloud.instance", Label: "Instances"},
	{Value: "cloud.ssh_key", Label: "SSH keys"},
	{Value: "cloud.filesystem", Label: "Filesystems"},
	{Value: "cloud.fabric_partition", Label: "Fabric partitions"},
	{Value: "cloud.firewall_ruleset", Label: "Firewall rulesets"},
	{Value: "cloud.global_firewall_ruleset", Label: "Global firewall ruleset"},
	{Value: "cloud.firewall_rules", Label: "Inbound firewall rules"},
	{Value: "cloud.api_key", Label: "API keys"},
	{Value: "cloud.session", Label: "Dashboard sign-ins"},
	{Value: "cloud.user", Label: "Users"},
	{Value: "cloud.account", Label: "Account"},
}

// auditFilters are the query parameters the page keeps in its URL, named
// as the API names them.
var auditFilters = []string{"start", "end", "resource_type"}

// AuditEvents shows a page of the account's audit log through the same
// query as GET /api/v1/audit-events. A filter the domain refuses is shown
// beside its field. The load-more button names the table body in
// HX-Target and gets the next page's rows with its own replacement.
func (h *Handlers) AuditEvents(c *fiber.Ctx) error {
	a := actor(c)
	form := views.Form{Values: filterValues(c, auditFilters...)}
	token := strings.Clone(c.Query("page_token"))
	loadMore := c.Get("HX-Target") == views.AuditRowsID
	page, err := h.store.AuditEvents(c.UserContext(), a, models.AuditEventsInput{
		Start: utcInstant(form.Value("start"), false), End: utcInstant(form.Value("end"), true),
		ResourceType: form.Value("resource_type"), PageToken: token,
	})
	status := fiber.StatusOK
	if err != nil {
		if loadMore {
			return err
		}
		if status, err = formError(err, &form); err != nil {
			return err
		}
	}
	v := views.AuditLog{Form: form, ResourceTypes: resourceTypeOptions(form.Value("resource_type")),
		Continued: token != "", FirstURL: auditURL(form, "")}
	for _, name := range auditFilters {
		v.Filtered = v.Filtered || form.Value(name) != ""
	}
	if page != nil {
		for _, ev := range page.Events {
			v.Events = append(v.Events, viewAuditEvent(ev, a))
		}
		if page.NextToken != "" {
			v.NextURL = auditURL(form, page.NextToken)
		}
	}
	if loadMore {
		return renderAlone(c, views.AuditNextPage(v))
	}
	return h.page(c, status, "Audit log", views.NavAudit, views.AuditLogPage(v))
}

// auditURL is the page's address with the form's filters and, when
// given, a page token: a view that can be shared.
func auditURL(form views.Form, token string) string {
	q := filterQuery(form.Values)
	if token != "" {
		q.Set("page_token", token)
	}
	if len(q) == 0 {
		return "/audit-events"
	}
	return "/audit-events?" + q.Encode()
}

// localMinute and localSecond are what datetime-local inputs send: a
// wall-clock time without a zone.
var (
	localMinute = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$`)
	localSecond = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`)
)

// utcInstant reads a datetime-local value as UTC, in RFC 3339 for the
// domain. The input names a whole minute (or second): as an end, which is
// inclusive, it includes all of it. Anything else is passed on for the
// domain to judge, so an RFC 3339 time in a shared URL works too.
func utcInstant(v string, end bool) string {
	switch {
	case localMinute.MatchString(v) && end:
		return v + ":59.999999Z"
	case localMinute.MatchString(v):
		return v + ":00Z"
	case localSecond.MatchString(v) && end:
		return v + ".999999Z"
	case localSecond.MatchString(v):
		return v + "Z"
	}
	return v
}

// resourceTypeOptions are the filter's choices; a value from the URL that
// is not among them is added, so the select shows what was asked for.
func resourceTypeOptions(current string) []views.Option {
	opts := append([]views.Option{}, auditResourceTypes...)
	if current == "" {
		return opts
	}
	for _, o := range opts {
		if o.Value == current {
			return opts
		}
	}
	return append(opts, views.Option{Value: current, Label: current})
}

func viewAuditEvent(ev models.AuditEvent, viewer models.Actor) views.AuditEvent {
	v := views.AuditEvent{ID: ev.ID, Time: ev.EventTime, Summary: eventSummary(ev),
		Type: ev.ServiceName + "." + ev.ResourceName, Action: ev.Action, Actor: eventActor(ev, viewer),
		ActorLRN: deref(ev.ActorLRN), APIKeyLRN: deref(ev.RequestAPIKeyLRN), OwnerLRN: deref(ev.ResourceOwnerLRN),
		ResourceLRNs: ev.ResourceLRNs, Details: "{}"}
	if len(ev.AdditionalDetails) > 0 {
		if b, err := json.MarshalIndent(ev.AdditionalDetails, "", "  "); err == nil {
			v.Details = string(b)
		}
	}
	return v
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

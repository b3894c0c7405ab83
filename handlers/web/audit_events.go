package web

import (
	"encoding/json"
	"maps"
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// auditResourceLabels name the audit log's resource types in the filter;
// the types themselves are models.AuditResources, so none is left out.
var auditResourceLabels = map[string]string{
	"instance":                "Instances",
	"ssh_key":                 "SSH keys",
	"filesystem":              "Filesystems",
	"fabric_partition":        "Fabric partitions",
	"firewall_ruleset":        "Firewall rulesets",
	"global_firewall_ruleset": "Global firewall ruleset",
	"firewall_rules":          "Inbound firewall rules",
	"api_key":                 "API keys",
	"session":                 "Dashboard sign-ins",
	"user":                    "Users",
	"account":                 "Account",
	"ticket":                  "Support tickets",
	"ticket_attachment":       "Ticket attachments",
	"passkey":                 "Passkeys",
	"webhook":                 "Webhook",
	"webhook_delivery":        "Webhook deliveries",
	"member":                  "Members",
	"sso_domain":              "Single sign-on domains",
	"budget":                  "Budget",
}

// auditActorLabels name the actor filter's choices, models.AuditActorRoles.
var auditActorLabels = map[string]string{
	models.RoleOwner:   "Owners and their API keys",
	models.RoleMember:  "Members and their API keys",
	models.RoleViewer:  "Viewers and their API keys",
	models.RoleSupport: "Support",
	"operator":         "The operator",
	"system":           "cloudplane",
}

// auditFilters are the query parameters the page keeps in its URL: the
// API's names, then the dashboard's own. order is "oldest" or empty
// (newest first).
var auditFilters = []string{"start", "end", "resource_type", "actor", "text", "order"}

// AuditEvents shows a page of the account's audit log (to support staff,
// the platform's) through the same query as GET /api/v1/audit-events. A
// filter the domain refuses is shown beside its field. The load-more
// button names the table body in HX-Target and gets the next page's rows
// with its own replacement.
func (h *Handlers) AuditEvents(c *fiber.Ctx) error {
	a := actor(c)
	form := views.Form{Values: filterValues(c, auditFilters...)}
	token := strings.Clone(c.Query("page_token"))
	loadMore := c.Get("HX-Target") == views.AuditRowsID
	in := auditInput(form)
	in.PageToken = token
	page, err := h.store.AuditEvents(c.UserContext(), a, in)
	status := fiber.StatusOK
	if err != nil {
		if loadMore {
			return err
		}
		if status, err = formErrorAt(err, &form, auditFieldNames); err != nil {
			return err
		}
	}
	v := views.AuditLog{Form: form, ResourceTypes: resourceTypeOptions(form.Value("resource_type")),
		Actors: actorOptions(a), Platform: a.IsSupport(), NewestFirst: in.NewestFirst, Continued: token != "",
		FirstURL: auditURL(form, ""), OrderURL: auditURL(toggledOrder(form), ""),
		CSVURL: auditExportURL(form.Values, "csv"), JSONLinesURL: auditExportURL(form.Values, "jsonl"),
		ExportLimit: models.AuditExportLimit, SearchWindow: models.AuditSearchWindow}
	for _, name := range auditFilters {
		v.Filtered = v.Filtered || (name != "order" && form.Value(name) != "")
	}
	if page != nil {
		emails, err := h.actorEmails(c, a, page.Events)
		if err != nil {
			return err
		}
		objects, err := h.store.AuditObjects(c.UserContext(), a, page.Events)
		if err != nil {
			return err
		}
		for _, ev := range page.Events {
			v.Events = append(v.Events, viewAuditEvent(ev, a, emails, objects))
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

// auditFieldNames are the form's names of the input's fields.
var auditFieldNames = map[string]string{"start": "start", "end": "end", "resource_type": "resource_type",
	"actor": "actor", "text": "text", "page_token": "page_token"}

// auditInput is the domain's query for the page's filters.
func auditInput(form views.Form) models.AuditEventsInput {
	return models.AuditEventsInput{
		Start: utcInstant(form.Value("start"), false), End: utcInstant(form.Value("end"), true),
		ResourceType: form.Value("resource_type"), ActorRole: form.Value("actor"), Text: form.Value("text"),
		NewestFirst: form.Value("order") != "oldest",
	}
}

// toggledOrder is the form with the other order.
func toggledOrder(form views.Form) views.Form {
	values := maps.Clone(form.Values)
	if values["order"] == "oldest" {
		values["order"] = ""
	} else {
		values["order"] = "oldest"
	}
	return views.Form{Values: values}
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
// wall-clock time without a zone; localDay is what a date input sends.
var (
	localDay    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	localMinute = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$`)
	localSecond = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`)
)

// utcInstant reads a date or datetime-local value as UTC, in RFC 3339 for
// the domain. The input names a whole day, minute or second: as an end,
// which is inclusive, it includes all of it. Anything else is passed on for the
// domain to judge, so an RFC 3339 time in a shared URL works too.
func utcInstant(v string, end bool) string {
	switch {
	case localDay.MatchString(v) && end:
		return v + "T23:59:59.999999Z"
	case localDay.MatchString(v):
		return v + "T00:00:00Z"
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
	var opts []views.Option
	for _, r := range models.AuditResources {
		label, ok := auditResourceLabels[r]
		if !ok {
			label = views.Capitalize(strings.ReplaceAll(r, "_", " "))
		}
		opts = append(opts, views.Option{Value: models.AuditServiceName + "." + r, Label: label})
	}
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

// actorOptions are the actor filter's choices for viewer. Support staff
// read the platform's log, where no owner acts.
func actorOptions(viewer models.Actor) []views.Option {
	var opts []views.Option
	for _, r := range models.AuditActorRoles {
		label := auditActorLabels[r]
		if viewer.IsSupport() {
			if r == models.RoleOwner || r == models.RoleMember || r == models.RoleViewer {
				continue
			}
			if r == models.RoleSupport {
				label = "Support staff"
			}
		}
		opts = append(opts, views.Option{Value: r, Label: label})
	}
	return opts
}

func viewAuditEvent(ev models.AuditEvent, viewer models.Actor, emails map[string]string,
	objects map[string]models.AuditObject) views.AuditEvent {
	parts := describeEvent(ev, objects)
	v := views.AuditEvent{ID: ev.ID, Time: ev.EventTime, Summary: partsText(parts), Parts: parts,
		Type: ev.ServiceName + "." + ev.ResourceName, Action: ev.Action, Actor: eventActor(ev, viewer, emails),
		ActorLRN: deref(ev.ActorLRN), APIKeyLRN: deref(ev.RequestAPIKeyLRN), OwnerLRN: deref(ev.ResourceOwnerLRN),
		ResourceLRNs: ev.ResourceLRNs, Details: "{}"}
	if details := ev.AdditionalDetails.Map(); len(details) > 0 {
		if b, err := json.MarshalIndent(details, "", "  "); err == nil {
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

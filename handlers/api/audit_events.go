package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// auditTimeLayout is RFC 3339 in UTC to the microsecond, the precision
// events are kept at: events of one second stay distinguishable, and an
// event_time given back as start or end selects exactly that event's time.
const auditTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// auditPageJSON is the reference's list body: the token is a sibling of
// data, null on the last page.
type auditPageJSON struct {
	Data      []AuditEventJSON `json:"data"`
	PageToken *string          `json:"page_token"`
}

// AuditEventJSON is an event as the API shows it (the dashboard's JSON
// lines export too).
type AuditEventJSON struct {
	EventID           string              `json:"event_id"`
	EventTime         string              `json:"event_time"`
	ServiceName       string              `json:"service_name"`
	ResourceName      string              `json:"resource_name"`
	Action            string              `json:"action"`
	CatalogVersion    string              `json:"catalog_version"`
	ActorLRN          *string             `json:"actor_lrn"`
	ResourceLRNs      []string            `json:"resource_lrns"`
	ResourceOwnerLRN  *string             `json:"resource_owner_lrn"`
	RequestAPIKeyLRN  *string             `json:"request_api_key_lrn"`
	AdditionalDetails models.AuditDetails `json:"additional_details"` // "{}" when empty
}

// AuditEvents answers one page of the account's audit log.
func (h *Handlers) AuditEvents(c *fiber.Ctx) error {
	page, err := h.store.AuditEvents(c.UserContext(), Actor(c), models.AuditEventsInput{
		Start:        c.Query("start"),
		End:          c.Query("end"),
		ResourceType: c.Query("resource_type"),
		PageToken:    c.Query("page_token"),
	})
	if err != nil {
		return err
	}
	body := auditPageJSON{Data: make([]AuditEventJSON, len(page.Events))}
	for i, e := range page.Events {
		body.Data[i] = AuditEventView(e)
	}
	if page.NextToken != "" {
		body.PageToken = &page.NextToken
	}
	return c.JSON(body)
}

// AuditEventView shapes an event as the reference does; lists and details
// are never null there.
func AuditEventView(e models.AuditEvent) AuditEventJSON {
	v := AuditEventJSON{
		EventID:           e.ID,
		EventTime:         e.EventTime.UTC().Format(auditTimeLayout),
		ServiceName:       e.ServiceName,
		ResourceName:      e.ResourceName,
		Action:            e.Action,
		CatalogVersion:    e.CatalogVersion,
		ActorLRN:          e.ActorLRN,
		ResourceLRNs:      e.ResourceLRNs,
		ResourceOwnerLRN:  e.ResourceOwnerLRN,
		RequestAPIKeyLRN:  e.RequestAPIKeyLRN,
		AdditionalDetails: e.AdditionalDetails,
	}
	if v.ResourceLRNs == nil {
		v.ResourceLRNs = []string{}
	}
	return v
}

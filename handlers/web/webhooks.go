package web

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Webhooks lists the owner's endpoints and offers to add one.
func (h *Handlers) Webhooks(c *fiber.Ctx) error {
	return h.webhooksPage(c, fiber.StatusOK, views.Webhooks{})
}

// webhooksPage renders v, filled in with the account's endpoints and the
// warnings about them. Support staff have no webhooks of their own.
func (h *Handlers) webhooksPage(c *fiber.Ctx, status int, v views.Webhooks) error {
	a := actor(c)
	if err := requireOwner(a); err != nil {
		return err
	}
	v.CSRF, v.Max = csrfToken(c), models.MaxWebhookEndpoints
	healths, err := h.webhookHealths(c)
	if err != nil {
		return err
	}
	for _, hl := range healths {
		e := hl.Endpoint
		v.Endpoints = append(v.Endpoints, views.WebhookRow{ID: e.ID, URL: e.URL, EventTypes: e.EventTypes,
			Enabled: e.Enabled, Failing: hl.Failing(), Rate: webhookHealth(hl).Rate})
	}
	v.Alerts = webhookAlerts(healths)
	v.Full = len(v.Endpoints) >= models.MaxWebhookEndpoints
	if v.EventTypes == nil {
		v.EventTypes = eventTypeChoices(models.TicketEventTypes)
	}
	showAt(c, "/webhook")
	return h.page(c, status, "Webhooks", views.NavWebhooks, views.WebhooksPage(v))
}

// webhookHealths is every endpoint of the owner's account with how it
// fared over the last day (at most MaxWebhookEndpoints of them).
func (h *Handlers) webhookHealths(c *fiber.Ctx) ([]*models.WebhookHealth, error) {
	endpoints, err := h.store.WebhookEndpoints(c.UserContext(), actor(c), "")
	if err != nil {
		return nil, err
	}
	out := make([]*models.WebhookHealth, 0, len(endpoints))
	for _, e := range endpoints {
		hl, err := h.store.WebhookHealth(c.UserContext(), actor(c), e.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, hl)
	}
	return out, nil
}

// eventTypeChoices are the event type checkboxes, checked as given.
func eventTypeChoices(checked []string) []views.Option {
	out := make([]views.Option, 0, len(models.SubscribableEventTypes))
	for _, t := range models.SubscribableEventTypes {
		out = append(out, views.Option{Value: t, Label: views.EventTypeLabel(t), Note: t, Checked: slices.Contains(checked, t)})
	}
	return out
}

func webhookHealth(h *models.WebhookHealth) views.WebhookHealth {
	v := views.WebhookHealth{Attempts: h.Attempts, Succeeded: h.Succeeded, LastError: h.LastError,
		LastErrorAt: h.LastErrorAt, Failing: h.Failing()}
	if h.SuccessRate != nil {
		v.Rate = strconv.FormatFloat(*h.SuccessRate*100, 'f', -1, 64)
		if len(v.Rate) > 4 {
			v.Rate = strconv.FormatFloat(*h.SuccessRate*100, 'f', 1, 64)
		}
		v.Rate += "%"
		v.Mean, v.Max = formatDuration(h.MeanLatency), formatDuration(h.MaxLatency)
	}
	return v
}

// CreateWebhook adds an endpoint. Its token and signing secret are shown
// this once, on the page the form posts to.
func (h *Handlers) CreateWebhook(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "url")}
	types := formList(c, "event_types")
	in := models.SetWebhookInput{URL: form.Value("url"), EventTypes: types}
	if in.EventTypes == nil {
		in.EventTypes = []string{} // none ticked: refused, not "every type"
	}
	e, token, err := h.store.CreateWebhookEndpoint(c.UserContext(), actor(c), in)
	if err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"url": "url", "event_types": "event_types"})
		if err != nil {
			return err
		}
		return h.webhooksPage(c, status, views.Webhooks{Form: form, EventTypes: eventTypeChoices(types)})
	}
	return h.webhooksPage(c, fiber.StatusCreated, views.Webhooks{Secrets: &views.WebhookSecrets{Token: token, Secret: e.Secret,
		Note: "Signing secret, to verify the webhook-signature header (Standard Webhooks); you can show it again from the endpoint's page:"}})
}

// webhookAlerts warn an owner about endpoints cloudplane disabled and
// those whose deliveries fail. No endpoint, no warning.
func webhookAlerts(healths []*models.WebhookHealth) []views.Alert {
	var out []views.Alert
	for _, hl := range healths {
		e := hl.Endpoint
		switch {
		case !hl.Failing():
		case !e.Enabled && e.DisabledReason != "":
			out = append(out, views.Alert{Kind: views.Danger, Title: "A webhook endpoint was disabled",
				Text: "cloudplane switched off " + e.URL + " because " + e.DisabledReason +
					". Events are not sent to it until you enable it on its page; then redeliver what failed.",
				Href: "/webhook/" + e.ID, Link: "Open the endpoint to enable it"})
		case !e.Enabled:
		default:
			out = append(out, views.Alert{Kind: views.Warning, Title: "Webhook deliveries are failing",
				Text: "The last attempt to " + e.URL + " failed: " + strings.TrimSuffix(hl.LastError, ".") +
					". Check your server; the delivery log shows each attempt and can redeliver failed events.",
				// Failing, not failed: a delivery still being retried is pending.
				Href: "/webhook-deliveries?" + filterQuery(map[string]string{"endpoint": e.ID, "status": models.DeliveryFailing}).Encode(),
				Link: "See this endpoint’s failing deliveries"})
		}
	}
	return out
}

// overviewWebhookAlerts are webhookAlerts for the overview page.
func (h *Handlers) overviewWebhookAlerts(c *fiber.Ctx) ([]views.Alert, error) {
	healths, err := h.webhookHealths(c)
	if err != nil {
		return nil, err
	}
	return webhookAlerts(healths), nil
}

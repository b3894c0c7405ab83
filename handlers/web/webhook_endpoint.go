package web

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Webhook shows one endpoint: its URL and event types, token, signing
// secret, whether it is on and how its deliveries fared over the last day.
func (h *Handlers) Webhook(c *fiber.Ctx) error {
	return h.webhookPage(c, fiber.StatusOK, strings.Clone(c.Params("id")), views.Webhook{})
}

// webhookPage renders v, filled in with endpoint id's state.
func (h *Handlers) webhookPage(c *fiber.Ctx, status int, id string, v views.Webhook) error {
	a := actor(c)
	if err := requireOwner(a); err != nil {
		return err
	}
	health, err := h.store.WebhookHealth(c.UserContext(), a, id)
	if err != nil {
		return err
	}
	e := health.Endpoint
	v.ID, v.URL, v.TokenHint, v.Enabled, v.CSRF = e.ID, e.URL, e.TokenHint(), e.Enabled, csrfToken(c)
	v.DisabledReason, v.DisabledAt = e.DisabledReason, e.DisabledAt
	if e.Rotating(h.store.Now()) {
		v.RotatingUntil = e.PreviousSecretUntil
	}
	v.Health = webhookHealth(health)
	hours, err := h.store.WebhookChart(c.UserContext(), a, id)
	if err != nil {
		return err
	}
	v.Chart = webhookChart(hours)
	v.ExampleTypes = exampleTypeChoices()
	if v.HeadersForm.Values == nil {
		v.HeadersForm.Values = map[string]string{}
		for i, hd := range e.Headers {
			v.HeadersForm.Values["header_name_"+strconv.Itoa(i)] = hd.Name
			v.HeadersForm.Values["header_value_"+strconv.Itoa(i)] = hd.Value
		}
		v.HeaderRows = len(e.Headers) + 2
	}
	v.HeaderRows = min(max(v.HeaderRows, 2), models.MaxWebhookHeaders)
	if v.ExampleType == "" {
		v.ExampleType = models.EventWebhookTest
	}
	if v.Form.Values == nil {
		v.Form.Values = map[string]string{"url": e.URL}
	}
	if v.EventTypes == nil {
		v.EventTypes = eventTypeChoices(e.EventTypes)
	}
	showAt(c, "/webhook/"+e.ID)
	return h.page(c, status, "Webhook endpoint", views.NavWebhooks, views.WebhookPage(v))
}

// UpdateWebhook saves an endpoint's URL and event types.
func (h *Handlers) UpdateWebhook(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	form := views.Form{Values: formValues(c, "url")}
	types := formList(c, "event_types")
	in := models.SetWebhookInput{EndpointID: id, URL: form.Value("url"), EventTypes: types}
	if in.EventTypes == nil {
		in.EventTypes = []string{}
	}
	e, _, err := h.store.SetWebhook(c.UserContext(), actor(c), in)
	if err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"url": "url", "event_types": "event_types"})
		if err != nil {
			return err
		}
		return h.webhookPage(c, status, id, views.Webhook{Form: form, EventTypes: eventTypeChoices(types)})
	}
	if err := h.flash(c, "Endpoint saved. New events go to "+e.URL+"."); err != nil {
		return err
	}
	return redirect(c, "/webhook/"+e.ID)
}

// SetWebhookEnabled switches one endpoint on or off (enabled=true|false).
func (h *Handlers) SetWebhookEnabled(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	enabled, err := strconv.ParseBool(c.FormValue("enabled"))
	if err != nil {
		return h.webhookRefused(c, id, models.InvalidField("enabled", "must be true or false"))
	}
	if _, err := h.store.SetWebhookEnabled(c.UserContext(), actor(c), id, enabled); err != nil {
		return h.webhookRefused(c, id, err)
	}
	msg := "Endpoint disabled. Events are logged but not sent to it; its pending deliveries were marked failed, so you can redeliver them later. Your other endpoints are unchanged."
	if enabled {
		msg = "Endpoint enabled. New events are delivered to it again; redeliver failed ones from the delivery log."
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/webhook/"+id)
}

// SendTestWebhookEvent queues an example of the chosen event type
// (event_type; webhook.test without one) to one endpoint and shows it in
// the log.
func (h *Handlers) SendTestWebhookEvent(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	typ := strings.Clone(c.FormValue("event_type"))
	if typ == "" {
		typ = models.EventWebhookTest
	}
	if _, err := h.store.SendExampleWebhookEvent(c.UserContext(), actor(c), id, typ); err != nil {
		status, msg, err := refused(err)
		if err != nil {
			return err
		}
		return h.webhookPage(c, status, id, views.Webhook{Message: msg, ExampleType: typ})
	}
	if err := h.flash(c, "Example "+typ+" event queued. It appears below, marked as a test, and is sent within seconds."); err != nil {
		return err
	}
	return redirect(c, "/webhook-deliveries?event_type="+typ+"&endpoint="+id)
}

// SetWebhookHeaders saves the custom headers of one endpoint from the rows
// header_name_N / header_value_N; a refusal shows beside the row.
func (h *Handlers) SetWebhookHeaders(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	form := views.Form{Values: map[string]string{}}
	names := map[string]string{}
	var headers []models.WebhookHeader
	rows := 0
	for i := 0; i < models.MaxWebhookHeaders; i++ {
		n, v := "header_name_"+strconv.Itoa(i), "header_value_"+strconv.Itoa(i)
		form.Values[n], form.Values[v] = strings.Clone(c.FormValue(n)), strings.Clone(c.FormValue(v))
		names["headers."+strconv.Itoa(i)+".name"], names["headers."+strconv.Itoa(i)+".value"] = n, v
		headers = append(headers, models.WebhookHeader{Name: form.Values[n], Value: form.Values[v]})
		if form.Values[n] != "" || form.Values[v] != "" {
			rows = i + 1
		}
	}
	e, err := h.store.SetWebhookHeaders(c.UserContext(), actor(c), id, headers)
	if err != nil {
		status, err := formErrorAt(err, &form, names)
		if err != nil {
			return err
		}
		return h.webhookPage(c, status, id, views.Webhook{HeadersForm: form, HeaderRows: rows + 1})
	}
	msg := "Custom headers saved. Every delivery to " + e.URL + " carries them from its next attempt."
	if len(e.Headers) == 0 {
		msg = "Custom headers removed."
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/webhook/"+id)
}

// exampleTypeChoices are the event types an example may have.
func exampleTypeChoices() []views.Option {
	out := make([]views.Option, 0, len(models.WebhookEventTypes))
	for _, t := range models.WebhookEventTypes {
		out = append(out, views.Option{Value: t, Label: views.EventTypeLabel(t) + " (" + t + ")"})
	}
	return out
}

// webhookChart is the endpoint page's chart of hours.
func webhookChart(hours []models.WebhookChartHour) views.WebhookChart {
	var v views.WebhookChart
	for _, h := range hours {
		v.Hours = append(v.Hours, views.ChartHour{Start: h.Start, Succeeded: h.Succeeded, Failed: h.Failed})
		v.Succeeded += h.Succeeded
		v.Failed += h.Failed
	}
	return v
}

// WebhookEvents is the event catalogue: every event type with an example
// body made by the same code as real deliveries.
func (h *Handlers) WebhookEvents(c *fiber.Ctx) error {
	var v views.WebhookEventCatalogue
	for _, t := range models.WebhookEventTypes {
		payload, err := models.ExampleWebhookEvent(t, h.store.Now())
		if err != nil {
			return err
		}
		v.Types = append(v.Types, views.WebhookEventExample{Type: t, Payload: payload})
	}
	return h.page(c, fiber.StatusOK, "Event catalogue", views.NavWebhooks, views.WebhookEventsPage(v))
}

// webhookRefused shows why the domain refused an action on the endpoint's
// page (422); other errors go to the error page.
func (h *Handlers) webhookRefused(c *fiber.Ctx, id string, err error) error {
	status, msg, err := refused(err)
	if err != nil {
		return err
	}
	return h.webhookPage(c, status, id, views.Webhook{Message: msg})
}

// confirmWebhook asks before an action on endpoint id: a page of its own,
// or the dialog's content for htmx.
func (h *Handlers) confirmWebhook(c *fiber.Ctx, title string, v func(e *models.WebhookEndpoint) views.Confirm) error {
	if err := requireOwner(actor(c)); err != nil {
		return err
	}
	e, err := h.store.WebhookEndpoint(c.UserContext(), actor(c), strings.Clone(c.Params("id")))
	if err != nil {
		return err
	}
	return h.confirm(c, title, views.NavWebhooks, v(e), false)
}

// ConfirmRotateWebhookToken asks before replacing an endpoint's token.
func (h *Handlers) ConfirmRotateWebhookToken(c *fiber.Ctx) error {
	return h.confirmWebhook(c, "Rotate webhook token", func(e *models.WebhookEndpoint) views.Confirm {
		return views.Confirm{Title: "Rotate the webhook token?",
			Text:   "Deliveries to " + e.URL + " carry the new token at once, and the token " + e.TokenHint() + " stops being sent. Update your server to accept the new one.",
			Action: "/webhook/" + e.ID + "/rotate-token", Submit: "Rotate token", CancelHref: "/webhook/" + e.ID}
	})
}

// RotateWebhookToken replaces the token and shows the new one this once.
func (h *Handlers) RotateWebhookToken(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	token, err := h.store.RotateWebhookToken(c.UserContext(), actor(c), id)
	if err != nil {
		return err
	}
	return h.webhookPage(c, fiber.StatusOK, id, views.Webhook{Secrets: &views.WebhookSecrets{Token: token}})
}

// ConfirmRotateWebhookSecret asks before replacing an endpoint's signing
// secret, saying how long the old one keeps signing.
func (h *Handlers) ConfirmRotateWebhookSecret(c *fiber.Ctx) error {
	return h.confirmWebhook(c, "Rotate signing secret", func(e *models.WebhookEndpoint) views.Confirm {
		return views.Confirm{Title: "Rotate the signing secret?",
			Text: "A new secret signs every delivery to " + e.URL + " from now on. For the next " + graceText(h.store.WebhookSecretGrace()) +
				" the current secret signs each delivery too (webhook-signature carries both), so your server keeps verifying while you move it to the new one; then only the new one signs.",
			Action: "/webhook/" + e.ID + "/rotate-secret", Submit: "Rotate secret", CancelHref: "/webhook/" + e.ID}
	})
}

// graceText says a grace period in hours or days.
func graceText(d time.Duration) string {
	if hours := int(d.Hours()); hours >= 48 && hours%24 == 0 {
		return strconv.Itoa(hours/24) + " days"
	} else if hours >= 1 {
		return views.Count(hours, "hour", "hours")
	}
	return d.String()
}

// RotateWebhookSecret replaces the signing secret and shows the new one.
func (h *Handlers) RotateWebhookSecret(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	e, err := h.store.RotateWebhookSecret(c.UserContext(), actor(c), id)
	if err != nil {
		return err
	}
	return h.webhookPage(c, fiber.StatusOK, id, views.Webhook{Secrets: &views.WebhookSecrets{Secret: e.Secret,
		Note: "Your new signing secret:", RotatingUntil: e.PreviousSecretUntil}})
}

// ConfirmDeleteWebhook asks before deleting an endpoint.
func (h *Handlers) ConfirmDeleteWebhook(c *fiber.Ctx) error {
	return h.confirmWebhook(c, "Delete webhook endpoint", func(e *models.WebhookEndpoint) views.Confirm {
		return views.Confirm{Title: "Delete this endpoint?",
			Text:   "Nothing more is sent to " + e.URL + ": its pending deliveries are dropped and its delivery log is deleted. Your other endpoints are unchanged.",
			Action: "/webhook/" + e.ID + "/delete", Submit: "Delete endpoint", CancelHref: "/webhook/" + e.ID}
	})
}

// DeleteWebhook deletes an endpoint and returns to the list.
func (h *Handlers) DeleteWebhook(c *fiber.Ctx) error {
	e, err := h.store.DeleteWebhookEndpoint(c.UserContext(), actor(c), strings.Clone(c.Params("id")))
	if err != nil {
		return err
	}
	if err := h.flash(c, "Endpoint "+e.URL+" deleted."); err != nil {
		return err
	}
	return redirect(c, "/webhook")
}

// WebhookSecret offers to show an endpoint's signing secret, once the
// session's user has proved who they are within models.ReauthWindow
// (else they are asked to, and come back here).
func (h *Handlers) WebhookSecret(c *fiber.Ctx) error {
	if done, err := h.requireRecentAuth(c, ""); done || err != nil {
		return err
	}
	return h.webhookSecretPage(c, fiber.StatusOK, strings.Clone(c.Params("id")), views.WebhookSecretReveal{})
}

func (h *Handlers) webhookSecretPage(c *fiber.Ctx, status int, id string, v views.WebhookSecretReveal) error {
	if err := requireOwner(actor(c)); err != nil {
		return err
	}
	e, err := h.store.WebhookEndpoint(c.UserContext(), actor(c), id)
	if err != nil {
		return err
	}
	v.ID, v.URL, v.CSRF = e.ID, e.URL, csrfToken(c)
	showAt(c, "/webhook/"+e.ID+"/secret")
	return h.page(c, status, "Signing secret", views.NavWebhooks, views.WebhookSecretPage(v))
}

// RevealWebhookSecret shows the signing secret (audited), in a session
// whose user proved who they are within models.ReauthWindow; otherwise
// they confirm it first and come back to the secret's page.
func (h *Handlers) RevealWebhookSecret(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	page := "/webhook/" + id + "/secret"
	if done, err := h.requireRecentAuth(c, page); done || err != nil {
		return err
	}
	e, err := h.store.RevealWebhookSecret(c.UserContext(), actor(c), id)
	if errors.Is(err, models.ErrReauthRequired) { // the window closed meanwhile
		return h.askIdentity(c, page)
	} else if err != nil {
		return err
	}
	return h.webhookSecretPage(c, fiber.StatusOK, id, views.WebhookSecretReveal{Secret: e.Secret})
}

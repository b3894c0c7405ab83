package web

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Webhook shows the owner's webhook: its URL, token, whether it is on and
// how deliveries fared over the last day; or the form that sets one up.
func (h *Handlers) Webhook(c *fiber.Ctx) error {
	return h.webhookPage(c, fiber.StatusOK, views.Webhook{})
}

// webhookPage renders v, filled in with the endpoint's state. Support
// staff have no webhook of their own.
func (h *Handlers) webhookPage(c *fiber.Ctx, status int, v views.Webhook) error {
	a := actor(c)
	if err := requireOwner(a); err != nil {
		return err
	}
	v.CSRF = csrfToken(c)
	health, err := h.store.WebhookHealth(c.UserContext(), a, "")
	switch {
	case models.ErrorCode(err) == models.CodeNotFound:
	case err != nil:
		return err
	default:
		e := health.Endpoint
		v.Set, v.URL, v.TokenHint, v.Enabled = true, e.URL, e.TokenHint(), e.Enabled
		v.DisabledReason, v.DisabledAt = e.DisabledReason, e.DisabledAt
		v.Health = webhookHealth(health)
		if v.Form.Values == nil {
			v.Form.Values = map[string]string{"url": e.URL}
		}
	}
	showAt(c, "/webhook")
	return h.page(c, status, "Webhooks", views.NavWebhooks, views.WebhookPage(v))
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
	}
	return v
}

// SetWebhook sets the webhook's URL. A new webhook's token and signing
// secret are shown this once, on the page the form posts to.
func (h *Handlers) SetWebhook(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "url")}
	e, token, err := h.store.SetWebhook(c.UserContext(), actor(c), models.SetWebhookInput{URL: form.Value("url")})
	if err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"url": "url"})
		if err != nil {
			return err
		}
		return h.webhookPage(c, status, views.Webhook{Form: form})
	}
	if token != "" {
		return h.webhookPage(c, fiber.StatusCreated, views.Webhook{Secrets: &views.WebhookSecrets{Token: token, Secret: e.Secret}})
	}
	if err := h.flash(c, "Webhook URL saved. New events go to "+e.URL+"."); err != nil {
		return err
	}
	return redirect(c, "/webhook")
}

// SetWebhookEnabled switches the webhook on or off (enabled=true|false).
func (h *Handlers) SetWebhookEnabled(c *fiber.Ctx) error {
	enabled, err := strconv.ParseBool(c.FormValue("enabled"))
	if err != nil {
		return h.webhookRefused(c, models.InvalidField("enabled", "must be true or false"))
	}
	if _, err := h.store.SetWebhookEnabled(c.UserContext(), actor(c), enabled); err != nil {
		return h.webhookRefused(c, err)
	}
	msg := "Webhook disabled. Events are logged but not sent; pending deliveries were marked failed, so you can redeliver them later."
	if enabled {
		msg = "Webhook enabled. New events are delivered again; redeliver failed ones from the delivery log."
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	return redirect(c, "/webhook")
}

// SendTestWebhookEvent queues a test event and shows it in the log.
func (h *Handlers) SendTestWebhookEvent(c *fiber.Ctx) error {
	if _, err := h.store.SendTestWebhookEvent(c.UserContext(), actor(c)); err != nil {
		return h.webhookRefused(c, err)
	}
	if err := h.flash(c, "Test event queued. It appears below and is sent within seconds."); err != nil {
		return err
	}
	return redirect(c, "/webhook-deliveries?event_type="+models.EventWebhookTest)
}

// webhookRefused shows why the domain refused an action on the webhook
// page (422); other errors go to the error page.
func (h *Handlers) webhookRefused(c *fiber.Ctx, err error) error {
	status, msg, err := refused(err)
	if err != nil {
		return err
	}
	return h.webhookPage(c, status, views.Webhook{Message: msg})
}

// ConfirmRotateWebhookToken asks before replacing the token: a page of
// its own, or the dialog's content for htmx.
func (h *Handlers) ConfirmRotateWebhookToken(c *fiber.Ctx) error {
	if err := requireOwner(actor(c)); err != nil {
		return err
	}
	e, err := h.store.Webhook(c.UserContext(), actor(c), "")
	if err != nil {
		return err
	}
	return h.confirm(c, "Rotate webhook token", views.NavWebhooks, views.Confirm{
		Title:      "Rotate the webhook token?",
		Text:       "Deliveries carry the new token at once, and the token " + e.TokenHint() + " stops being sent. Update your server to accept the new one.",
		Action:     "/webhook/rotate-token",
		Submit:     "Rotate token",
		CancelHref: "/webhook",
	}, false)
}

// RotateWebhookToken replaces the token and shows the new one this once.
func (h *Handlers) RotateWebhookToken(c *fiber.Ctx) error {
	token, err := h.store.RotateWebhookToken(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	return h.webhookPage(c, fiber.StatusOK, views.Webhook{Secrets: &views.WebhookSecrets{Token: token}})
}

// webhookAlerts warn an owner on the overview while the webhook is off or
// its deliveries fail. No webhook, no warning.
func (h *Handlers) webhookAlerts(c *fiber.Ctx) ([]views.Alert, error) {
	health, err := h.store.WebhookHealth(c.UserContext(), actor(c), "")
	if models.ErrorCode(err) == models.CodeNotFound {
		return nil, nil
	}
	if err != nil || !health.Failing() {
		return nil, err
	}
	e := health.Endpoint
	switch {
	case !e.Enabled && e.DisabledReason != "":
		return []views.Alert{{Kind: views.Danger, Title: "Your webhook was disabled",
			Text: "cloudplane switched it off because " + e.DisabledReason + ". Ticket events are not sent until you enable it on the Webhooks page."}}, nil
	case !e.Enabled:
		return []views.Alert{{Kind: views.Warning, Title: "Your webhook is disabled",
			Text: "Ticket events are not sent to it. Enable it on the Webhooks page when you want them again."}}, nil
	}
	return []views.Alert{{Kind: views.Warning, Title: "Webhook deliveries are failing",
		Text: "The last attempt failed: " + strings.TrimSuffix(health.LastError, ".") +
			". Check your server; the delivery log shows each attempt and can redeliver failed events."}}, nil
}

package web

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// sinceLayout is how the redeliver form's datetime-local field sends a
// time (in UTC).
const sinceLayout = "2006-01-02T15:04"

// Deliveries is the webhook delivery log, newest first: an owner's own
// deliveries, or every account's for support staff. Filters: status,
// event_type, ticket, and for staff account (an id or an owner's email).
// For htmx polling (HX-Target deliveries) it answers the list alone.
func (h *Handlers) Deliveries(c *fiber.Ctx) error {
	q := filterValues(c, "status", "event_type", "account", "ticket", "endpoint", "event")
	v := views.Deliveries{Status: q["status"], EventType: q["event_type"], Account: q["account"], Ticket: q["ticket"],
		Endpoint: q["endpoint"], Event: q["event"]}
	return h.deliveriesPage(c, fiber.StatusOK, v, strings.Clone(c.Query("page_token")), nil)
}

func (h *Handlers) deliveriesPage(c *fiber.Ctx, status int, v views.Deliveries, token string, redeliver *views.RedeliverFailed) error {
	a := actor(c)
	v.Support, v.CSRF, v.EventTypes = a.IsSupport(), csrfToken(c), eventTypeOptions
	if !v.Support {
		v.Account = "" // owners always see their own
	}
	f := models.DeliveryFilter{TicketID: v.Ticket, EndpointID: v.Endpoint, EventID: v.Event, PageToken: token}
	if v.Status != "" {
		f.Statuses = []string{v.Status}
	}
	if v.EventType != "" {
		f.EventTypes = []string{v.EventType}
	}
	listStatus, err := h.deliveryRows(c, &v, &f)
	if err != nil {
		return err
	}
	status = max(status, listStatus) // a refused form or filter answers 422
	if err := h.redeliverForm(c, &v, f.AccountID, redeliver); err != nil {
		return err
	}
	if c.Get("HX-Target") == "deliveries" {
		return renderAlone(c.Status(status), views.DeliveryList(v))
	}
	showAt(c, v.Self)
	return h.page(c, status, "Webhook deliveries", deliveriesNav(a), views.DeliveriesPage(v))
}

// redeliverForm offers to redeliver an endpoint's failures where one
// endpoint is in view (the endpoint filter, or an owner's only endpoint)
// and the page shows a failure, or after the form was refused; while the
// endpoint is off it says so instead. It also fills the endpoint filter's
// choices for an owner.
func (h *Handlers) redeliverForm(c *fiber.Ctx, v *views.Deliveries, accountID string, refused *views.RedeliverFailed) error {
	v.Redeliver = refused
	var endpoints []models.WebhookEndpoint
	if !v.Support || accountID != "" {
		var err error
		if endpoints, err = h.store.WebhookEndpoints(c.UserContext(), actor(c), accountID); err != nil {
			return err
		}
	}
	for _, e := range endpoints {
		v.Endpoints = append(v.Endpoints, views.Option{Value: e.ID, Label: e.URL})
	}
	endpoint := v.Endpoint
	if endpoint == "" && len(endpoints) == 1 {
		endpoint = endpoints[0].ID
	}
	failed := slices.ContainsFunc(v.Rows, func(d views.Delivery) bool { return d.Status == models.DeliveryFailed })
	if v.Redeliver == nil && failed && endpoint != "" {
		since := h.store.Now().Add(-models.HealthWindow).Format(sinceLayout)
		v.Redeliver = &views.RedeliverFailed{Account: v.Account, Endpoint: endpoint,
			Form: views.Form{Values: map[string]string{"since": since}}}
	}
	if v.Redeliver == nil {
		return nil
	}
	if v.Redeliver.Endpoint == "" {
		v.Redeliver.Endpoint = endpoint
	}
	i := slices.IndexFunc(endpoints, func(e models.WebhookEndpoint) bool { return e.ID == v.Redeliver.Endpoint })
	v.Redeliver.Disabled = i >= 0 && !endpoints[i].Enabled
	return nil
}

// deliveryRows fills v with a page of the log, and f with the account an
// account filter names. A refused filter goes back on the form, with the
// status to answer.
func (h *Handlers) deliveryRows(c *fiber.Ctx, v *views.Deliveries, f *models.DeliveryFilter) (int, error) {
	a := actor(c)
	q := filterQuery(map[string]string{"status": v.Status, "event_type": v.EventType, "account": v.Account, "ticket": v.Ticket,
		"endpoint": v.Endpoint, "event": v.Event})
	v.Self, v.Paged = "/webhook-deliveries?"+q.Encode(), f.PageToken != ""
	if v.Account != "" {
		id, err := h.store.AccountID(c.UserContext(), a, v.Account)
		if err != nil {
			return formError(err, &v.Form)
		}
		f.AccountID = id
	}
	page, err := h.store.WebhookDeliveries(c.UserContext(), a, *f)
	if err != nil {
		return formError(err, &v.Form)
	}
	now := h.store.Now()
	for _, d := range page.Deliveries {
		v.Rows = append(v.Rows, deliveryRow(d))
		if d.Status == models.DeliveryPending {
			v.PollEvery = sooner(v.PollEvery, pollEvery(d.NextAttemptAt, now))
		}
	}
	if err := h.nameAccounts(c, v.Rows); err != nil {
		return 0, err
	}
	if f.PageToken != "" {
		q.Set("page_token", f.PageToken)
		v.Self = "/webhook-deliveries?" + q.Encode()
	}
	if page.NextPageToken != nil {
		q.Set("page_token", *page.NextPageToken)
		v.NextHref = "/webhook-deliveries?" + q.Encode()
	}
	return fiber.StatusOK, nil
}

var eventTypeOptions = func() []views.Option {
	var out []views.Option
	for _, t := range []string{models.EventTicketCreated, models.EventTicketStatusChanged, models.EventTicketResolved, models.EventWebhookTest} {
		out = append(out, views.Option{Value: t, Label: views.EventTypeLabel(t)})
	}
	return out
}()

func deliveriesNav(a models.Actor) string {
	if a.IsSupport() {
		return views.NavDeliveries
	}
	return views.NavWebhooks
}

func deliveryRow(d models.DeliverySummary) views.Delivery {
	return views.Delivery{ID: d.ID, EventType: d.EventType, Status: d.Status, Attempts: d.Attempts,
		LastStatusCode: d.LastStatusCode, LastError: d.LastError, TicketID: deref(d.TicketID), AccountID: d.AccountID,
		URL: d.URL, Created: d.CreatedAt, Completed: d.CompletedAt, NextAttempt: d.NextAttemptAt, EndpointID: d.EndpointID}
}

// pollEvery is how often a page showing a pending delivery reloads: soon
// while an attempt is due, less often while a retry is far off.
func pollEvery(next, now time.Time) string {
	wait := next.Sub(now)
	switch {
	case wait <= 2*time.Second:
		return "2s"
	case wait >= 30*time.Second:
		return "30s"
	}
	return strconv.Itoa(int(wait.Round(time.Second)/time.Second)) + "s"
}

// sooner is the shorter of two poll intervals; "" is never.
func sooner(a, b string) string {
	if a == "" {
		return b
	}
	da, _ := time.ParseDuration(a)
	if db, _ := time.ParseDuration(b); db < da {
		return b
	}
	return a
}

// Delivery shows one delivery: the request it sends and every attempt.
// Another account's delivery is not found. For htmx polling (HX-Target
// delivery) it answers the content alone.
func (h *Handlers) Delivery(c *fiber.Ctx) error {
	return h.deliveryPage(c, fiber.StatusOK, strings.Clone(c.Params("id")), "")
}

func (h *Handlers) deliveryPage(c *fiber.Ctx, status int, id, message string) error {
	a := actor(c)
	d, err := h.store.WebhookDelivery(c.UserContext(), a, id)
	if err != nil {
		return err
	}
	v := views.DeliveryDetail{Delivery: deliveryRow(d.DeliverySummary), EventID: d.EventID, Support: a.IsSupport(),
		RequestBody: indentJSON(d.RequestBody), Message: message, CSRF: csrfToken(c), Now: h.store.Now()}
	if d.Status == models.DeliveryPending {
		v.PollEvery = pollEvery(d.NextAttemptAt, h.store.Now())
	}
	rows := []views.Delivery{v.Delivery}
	if err := h.nameAccounts(c, rows); err != nil {
		return err
	}
	v.Delivery = rows[0]
	for i := len(d.AttemptLog) - 1; i >= 0; i-- {
		v.AttemptLog = append(v.AttemptLog, attemptView(d.AttemptLog[i]))
	}
	if n := len(d.AttemptLog); n > 0 {
		last := d.AttemptLog[n-1]
		v.HeadersFrom = last.Number
		for name, value := range last.RequestHeaders {
			v.RequestHeaders = append(v.RequestHeaders, views.Header{Name: name, Value: value})
		}
		sortHeaders(v.RequestHeaders)
	}
	if c.Get("HX-Target") == "delivery" {
		return renderAlone(c.Status(status), views.DeliveryPage(v))
	}
	showAt(c, "/webhook-deliveries/"+d.ID)
	return h.page(c, status, views.EventTypeLabel(d.EventType)+" delivery", deliveriesNav(a), views.DeliveryPage(v))
}

func attemptView(at models.WebhookAttempt) views.Attempt {
	v := views.Attempt{Number: at.Number, Started: at.StartedAt, Duration: formatDuration(at.Duration), URL: at.URL,
		RemoteAddr: at.RemoteAddr, StatusCode: at.StatusCode, ErrorKind: at.ErrorKind, Error: at.Error, Succeeded: at.Succeeded}
	for name, values := range at.ResponseHeaders {
		v.Headers = append(v.Headers, views.Header{Name: name, Value: strings.Join(values, ", ")})
	}
	sortHeaders(v.Headers)
	switch {
	case !utf8Text(at.ResponseBody):
		v.BodyNote = strconv.Itoa(len(at.ResponseBody)) + " bytes that are not text."
	default:
		v.Body = string(at.ResponseBody)
	}
	if at.BodyTruncated {
		v.BodyNote = strings.TrimSpace(v.BodyNote + " Only the first " + strconv.Itoa(models.MaxCapturedBody>>10) + " KiB were kept.")
	}
	return v
}

func utf8Text(b []byte) bool { return utf8.Valid(b) && !slices.Contains(b, 0) }

func sortHeaders(hs []views.Header) {
	slices.SortFunc(hs, func(a, b views.Header) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
}

func formatDuration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
}

// indentJSON lays the event out for reading; the bytes sent are the
// compact original.
func indentJSON(raw string) string {
	var out bytes.Buffer
	if json.Indent(&out, []byte(raw), "", "  ") != nil {
		return raw
	}
	return out.String()
}

// RedeliverWebhook queues one finished delivery again and follows it on
// its page. A pending delivery, or one to a disabled webhook, is refused
// on the page (422).
func (h *Handlers) RedeliverWebhook(c *fiber.Ctx) error {
	id := strings.Clone(c.Params("id"))
	if _, err := h.store.RedeliverWebhook(c.UserContext(), actor(c), id); err != nil {
		status, msg, err := refused(err)
		if err != nil {
			return err
		}
		return h.deliveryPage(c, status, id, msg)
	}
	if err := h.flash(c, "Delivery queued again. This page follows its attempts."); err != nil {
		return err
	}
	return redirect(c, "/webhook-deliveries/"+id)
}

// RedeliverFailedWebhooks queues again every failed delivery of the
// endpoint created since the posted time (UTC): the owner's own, or for
// support staff the posted account's.
func (h *Handlers) RedeliverFailedWebhooks(c *fiber.Ctx) error {
	a := actor(c)
	form := views.Form{Values: formValues(c, "since", "account", "endpoint")}
	n, err := h.redeliverFailed(c, a, form)
	if err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"since": "since"})
		if err != nil {
			return err
		}
		v := views.Deliveries{Account: form.Value("account"), Endpoint: form.Value("endpoint")}
		return h.deliveriesPage(c, status, v, "", &views.RedeliverFailed{Account: form.Value("account"),
			Endpoint: form.Value("endpoint"), Form: form})
	}
	msg := "No failed deliveries since then; nothing was queued."
	switch {
	case n == 1:
		msg = "1 failed delivery queued again."
	case n > 1:
		msg = strconv.FormatInt(n, 10) + " failed deliveries queued again."
	}
	if err := h.flash(c, msg); err != nil {
		return err
	}
	q := url.Values{}
	if a.IsSupport() {
		q.Set("account", form.Value("account"))
	}
	if form.Value("endpoint") != "" {
		q.Set("endpoint", form.Value("endpoint"))
	}
	to := "/webhook-deliveries"
	if len(q) > 0 {
		to += "?" + q.Encode()
	}
	return redirect(c, to)
}

func (h *Handlers) redeliverFailed(c *fiber.Ctx, a models.Actor, form views.Form) (int64, error) {
	since, err := time.ParseInLocation(sinceLayout, strings.TrimSpace(form.Value("since")), time.UTC)
	if err != nil && form.Value("since") != "" {
		return 0, models.InvalidField("since", "must be a date and time, such as 2026-01-02T15:04")
	}
	in := models.RedeliverFailedInput{Since: since, EndpointID: form.Value("endpoint")}
	if a.IsSupport() && form.Value("account") != "" {
		if in.AccountID, err = h.store.AccountID(c.UserContext(), a, form.Value("account")); err != nil {
			return 0, err
		}
	}
	return h.store.RedeliverFailedWebhooks(c.UserContext(), a, in)
}

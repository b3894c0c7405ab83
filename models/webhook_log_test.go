package models_test

import (
	"strconv"
	"testing"
	"time"

	"cloudplane/models"
)

// attempt claims every due delivery as the dispatcher would and records
// one attempt with the given status code for each, in one batch.
func (f *ticketFixture) attempt(code int, retry bool) []models.DeliveryJob {
	f.t.Helper()
	jobs, err := f.store.ClaimWebhookDeliveries(f.ctx, "dispatcher", 100, time.Minute)
	if err != nil {
		f.t.Fatal(err)
	}
	var records []models.AttemptRecord
	for _, job := range jobs {
		a := models.WebhookAttempt{URL: job.URL, StartedAt: f.clock.Now(), StatusCode: code, Succeeded: code < 300,
			RequestHeaders: map[string]string{"Authorization": "Bearer " + models.MaskToken(job.Token)}, ResponseHeaders: map[string][]string{}}
		var dec models.DeliveryDecision
		if code >= 300 {
			a.ErrorKind, a.Error = "http", "HTTP "+strconv.Itoa(code)
			if retry {
				at := f.clock.Now().Add(time.Minute)
				dec.RetryAt = &at
			}
		}
		records = append(records, models.AttemptRecord{Job: job, Attempt: a, Decision: dec})
	}
	if err := f.store.RecordWebhookAttempts(f.ctx, "dispatcher", records); err != nil {
		f.t.Fatal(err)
	}
	return jobs
}

func TestDeliveryLogScopesAndFilters(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://hooks.example.com/owner")
	f.webhook(f.other, "https://hooks.example.com/other")
	mine := f.incident(f.owner, "mine")
	f.incident(f.other, "theirs")
	f.attempt(500, false) // both failed
	if _, err := f.store.UpdateTicket(f.ctx, f.support, mine.ID, models.UpdateTicketInput{Status: ptr("solved")}); err != nil {
		t.Fatal(err)
	}
	f.attempt(200, false)

	list := func(actor models.Actor, filter models.DeliveryFilter) []models.DeliverySummary {
		t.Helper()
		var all []models.DeliverySummary
		filter.Limit = 1
		for {
			page, err := f.store.WebhookDeliveries(f.ctx, actor, filter)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, page.Deliveries...)
			if page.NextPageToken == nil {
				return all
			}
			filter.PageToken = *page.NextPageToken
		}
	}
	cases := []struct {
		name   string
		actor  models.Actor
		filter models.DeliveryFilter
		want   int
	}{
		{"owner sees own", f.owner, models.DeliveryFilter{}, 2},
		{"other sees own", f.other, models.DeliveryFilter{}, 1},
		{"owner cannot widen to another account", f.owner, models.DeliveryFilter{AccountID: f.other.AccountID}, 2},
		{"support sees all", f.support, models.DeliveryFilter{}, 3},
		{"support by account", f.support, models.DeliveryFilter{AccountID: f.other.AccountID}, 1},
		{"by status", f.support, models.DeliveryFilter{Statuses: []string{models.DeliveryFailed}}, 2},
		{"by event type", f.support, models.DeliveryFilter{EventTypes: []string{models.EventTicketResolved}}, 1},
		{"by ticket", f.support, models.DeliveryFilter{TicketID: mine.ID}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := list(tc.actor, tc.filter); len(got) != tc.want {
				t.Fatalf("%d deliveries, want %d", len(got), tc.want)
			}
		})
	}
	_, err := f.store.WebhookDeliveries(f.ctx, f.owner, models.DeliveryFilter{Statuses: []string{"lost"}})
	expectCode(t, err, models.CodeInvalidParameters, "status")
	_, err = f.store.WebhookDeliveries(f.ctx, f.owner, models.DeliveryFilter{PageToken: "forged.token"})
	expectCode(t, err, models.CodeInvalidParameters, "page_token")

	theirs := list(f.other, models.DeliveryFilter{})[0]
	if _, err := f.store.WebhookDelivery(f.ctx, f.owner, theirs.ID); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("another account's delivery: %v", err)
	}
	if _, err := f.store.RedeliverWebhook(f.ctx, f.owner, theirs.ID); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("redelivering another account's delivery: %v", err)
	}
	d, err := f.store.WebhookDelivery(f.ctx, f.support, theirs.ID)
	if err != nil || d.EventType != models.EventTicketCreated || len(d.AttemptLog) != 1 || d.RequestBody == "" ||
		d.AttemptLog[0].RequestHeaders["Authorization"] == "" || d.URL != "https://hooks.example.com/other" {
		t.Fatalf("detail %+v, %v", d, err)
	}
}

func TestRedeliverRefusesPendingDeliveries(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://hooks.example.com/")
	f.incident(f.owner, "t")
	page, _ := f.store.WebhookDeliveries(f.ctx, f.owner, models.DeliveryFilter{})
	_, err := f.store.RedeliverWebhook(f.ctx, f.owner, page.Deliveries[0].ID)
	expectCode(t, err, models.CodeInvalidParameters, "status")
	f.attempt(200, false)
	if _, err := f.store.RedeliverWebhook(f.ctx, f.owner, page.Deliveries[0].ID); err != nil {
		t.Fatalf("a succeeded delivery may be sent again: %v", err)
	}
}

// Only the holder of a delivery's lease moves it on; another process's
// late attempt is logged but changes nothing.
func TestLeaseGuardsTheDeliveryState(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://hooks.example.com/")
	f.incident(f.owner, "t")
	jobs, _ := f.store.ClaimWebhookDeliveries(f.ctx, "first", 10, time.Second)
	if more, _ := f.store.ClaimWebhookDeliveries(f.ctx, "second", 10, time.Second); len(jobs) != 1 || len(more) != 0 {
		t.Fatalf("claims %d and %d", len(jobs), len(more))
	}
	f.clock.Advance(2 * time.Second)
	stolen, _ := f.store.ClaimWebhookDeliveries(f.ctx, "second", 10, time.Minute)
	if len(stolen) != 1 {
		t.Fatal("an expired lease was not taken over")
	}
	late := models.WebhookAttempt{URL: jobs[0].URL, StartedAt: f.clock.Now(), StatusCode: 500, ErrorKind: "http", Error: "HTTP 500",
		RequestHeaders: map[string]string{}, ResponseHeaders: map[string][]string{}}
	if err := f.store.RecordWebhookAttempts(f.ctx, "first", []models.AttemptRecord{{Job: jobs[0], Attempt: late}}); err != nil {
		t.Fatal(err)
	}
	d, _ := f.store.WebhookDelivery(f.ctx, f.support, jobs[0].DeliveryID)
	if d.Status != models.DeliveryPending || d.LeaseOwner != "second" || len(d.AttemptLog) != 1 {
		t.Fatalf("after a late attempt: %+v", d.WebhookDelivery)
	}
	if err := f.store.ReleaseWebhookDeliveries(f.ctx, "second"); err != nil {
		t.Fatal(err)
	}
	if again, _ := f.store.ClaimWebhookDeliveries(f.ctx, "third", 10, time.Minute); len(again) != 1 {
		t.Fatal("a released delivery is not claimable at once")
	}
}

func TestWebhookHealth(t *testing.T) {
	f := newTicketFixture(t)
	e := f.webhook(f.owner, "https://hooks.example.com/")
	f.incident(f.owner, "old")
	f.attempt(500, false)
	f.clock.Advance(25 * time.Hour) // out of the window
	f.incident(f.owner, "a")
	f.incident(f.owner, "b")
	f.attempt(503, true)
	f.clock.Advance(time.Minute)
	f.attempt(200, false)
	h, err := f.store.WebhookHealth(f.ctx, f.owner, e.ID)
	if err != nil || h.Attempts != 4 || h.Succeeded != 2 || h.SuccessRate == nil || *h.SuccessRate != 0.5 ||
		h.LastError == "" || !h.LastErrorAt.Equal(f.clock.Now().Add(-time.Minute)) {
		t.Fatalf("health %+v, %v", h, err)
	}
	if h.Failing() || !h.LastSuccess.Equal(f.clock.Now()) {
		t.Fatalf("a success after the last failure: failing %v, last success %v", h.Failing(), h.LastSuccess)
	}
	if _, err := f.store.WebhookHealth(f.ctx, f.other, e.ID); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("health of another account's webhook: %v", err)
	}
}

func TestPruneKeepsRecentAndPendingDeliveries(t *testing.T) {
	f := newTicketFixture(t)
	f.webhook(f.owner, "https://hooks.example.com/")
	f.incident(f.owner, "old, delivered")
	f.attempt(200, false)
	f.incident(f.owner, "old, still pending")
	if jobs, _ := f.store.ClaimWebhookDeliveries(f.ctx, "crashed", 10, 100*24*time.Hour); len(jobs) != 1 {
		t.Fatal("claim")
	}
	f.incident(f.other, "old, no endpoint")
	f.clock.Advance(31 * 24 * time.Hour)
	f.incident(f.owner, "recent, delivered")
	f.attempt(200, false)
	n, err := f.store.PruneWebhookLog(f.ctx, f.clock.Now().Add(-30*24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	if got := f.count(&models.WebhookDelivery{}, ""); got != 2 {
		t.Fatalf("%d deliveries left, want the pending and the recent one", got)
	}
	if got := f.count(&models.WebhookEvent{}, ""); got != 2 {
		t.Fatalf("%d events left", got)
	}
	if got := f.count(&models.WebhookAttempt{}, ""); got != 1 {
		t.Fatalf("%d attempts left", got)
	}
}

// An endpoint fails while its latest attempt failed, and whenever it is
// disabled, so that the owner's overview can warn about it.
func TestWebhookHealthFailing(t *testing.T) {
	f := newTicketFixture(t)
	e := f.webhook(f.owner, "https://hooks.example.com/")
	health := func() *models.WebhookHealth {
		t.Helper()
		h, err := f.store.WebhookHealth(f.ctx, f.owner, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if health().Failing() {
		t.Fatal("an endpoint without attempts is failing")
	}
	f.incident(f.owner, "a")
	f.attempt(200, false)
	f.clock.Advance(time.Minute)
	f.incident(f.owner, "b")
	f.attempt(500, true)
	if h := health(); !h.Failing() || h.LastError != "HTTP 500" {
		t.Fatalf("after a failed attempt: failing %v, %+v", h.Failing(), h)
	}
	f.clock.Advance(time.Minute)
	f.attempt(200, false)
	if health().Failing() {
		t.Fatal("still failing after the retry succeeded")
	}
	if _, err := f.store.SetWebhookEnabled(f.ctx, f.owner, e.ID, false); err != nil {
		t.Fatal(err)
	}
	if !health().Failing() {
		t.Fatal("a disabled endpoint is not failing")
	}
}

// One batch of attempts moves each delivery as its own outcome says and
// keeps each endpoint's failing streak, whatever else the batch holds
// (on PostgreSQL one statement writes the deliveries' states).
func TestRecordingABatchMovesEachDelivery(t *testing.T) {
	f := newTicketFixture(t)
	mine := f.webhook(f.owner, "https://hooks.example.com/owner")
	theirs := f.webhook(f.other, "https://hooks.example.com/other")
	f.incident(f.other, "before")
	f.attempt(500, false) // their endpoint starts failing
	failingFrom := f.clock.Now()
	f.clock.Advance(time.Minute)
	for i := range 3 {
		f.incident(f.owner, "t"+strconv.Itoa(i))
	}
	f.incident(f.other, "after")
	jobs, err := f.store.ClaimWebhookDeliveries(f.ctx, "dispatcher", 100, time.Minute)
	if err != nil || len(jobs) != 4 {
		t.Fatalf("claimed %d, %v", len(jobs), err)
	}
	now := f.clock.Now()
	retryAt := now.Add(time.Hour)
	record := func(job models.DeliveryJob, code int, dec models.DeliveryDecision) models.AttemptRecord {
		a := models.WebhookAttempt{URL: job.URL, StartedAt: now, StatusCode: code, Succeeded: code < 300,
			RequestHeaders: map[string]string{}, ResponseHeaders: map[string][]string{}}
		if code >= 300 {
			a.ErrorKind, a.Error = "http", "HTTP "+strconv.Itoa(code)
		}
		return models.AttemptRecord{Job: job, Attempt: a, Decision: dec}
	}
	var ours []models.DeliveryJob
	var their models.DeliveryJob
	for _, j := range jobs {
		if j.EndpointID == mine.ID {
			ours = append(ours, j)
		} else {
			their = j
		}
	}
	records := []models.AttemptRecord{
		record(ours[0], 204, models.DeliveryDecision{}),
		record(ours[1], 503, models.DeliveryDecision{RetryAt: &retryAt}),
		record(ours[2], 500, models.DeliveryDecision{RetryAt: &retryAt, Stopped: true}),
		record(their, 200, models.DeliveryDecision{}),
		// ours[0] again, after its lease went with the success: logged only.
		record(ours[0], 500, models.DeliveryDecision{RetryAt: &retryAt}),
	}
	if err := f.store.RecordWebhookAttempts(f.ctx, "dispatcher", records); err != nil {
		t.Fatal(err)
	}
	type state struct {
		status         string
		tries, attempt int
		code           int
		lastError      string
		next           time.Time
		completed      bool
	}
	created := now // the fixture's clock stood still since the tickets
	want := map[string]state{
		ours[0].DeliveryID: {models.DeliverySucceeded, 1, 2, 500, "HTTP 500", created, true},
		ours[1].DeliveryID: {models.DeliveryPending, 1, 1, 503, "HTTP 503", retryAt, false},
		ours[2].DeliveryID: {models.DeliveryFailed, 1, 1, 500, "HTTP 500", created, true},
		their.DeliveryID:   {models.DeliverySucceeded, 1, 1, 200, "", created, true},
	}
	for id, w := range want {
		d, err := f.store.WebhookDelivery(f.ctx, f.support, id)
		if err != nil {
			t.Fatal(err)
		}
		got := state{d.Status, d.Tries, d.Attempts, d.LastStatusCode, d.LastError, d.NextAttemptAt.UTC(), d.CompletedAt != nil}
		if got != w || d.LeaseOwner != "" || d.LeaseUntil != nil || !d.UpdatedAt.Equal(now) || len(d.AttemptLog) != w.attempt {
			t.Errorf("delivery %s: %+v (lease %q %v, updated %v, %d logged), want %+v", id, got,
				d.LeaseOwner, d.LeaseUntil, d.UpdatedAt, len(d.AttemptLog), w)
		}
	}
	if e, err := f.store.WebhookEndpoint(f.ctx, f.other, theirs.ID); err != nil || e.FailingSince != nil {
		t.Fatalf("their endpoint, failing since %v before, succeeded last: failing since %v, %v", failingFrom, e.FailingSince, err)
	}
	if e, err := f.store.WebhookEndpoint(f.ctx, f.owner, mine.ID); err != nil || e.FailingSince == nil || !e.FailingSince.Equal(now) {
		t.Fatalf("our endpoint, failed last: failing since %v, %v", e.FailingSince, err)
	}
}

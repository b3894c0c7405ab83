package webhooks_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks"
)

// deadline bounds every wait in these tests; nothing sleeps.
const deadline = 10 * time.Second

// harness is a store with an owner, a dispatcher reporting each stored
// attempt on a channel, and an injected clock.
type harness struct {
	t        *testing.T
	ctx      context.Context
	store    *models.Store
	clock    *modelstest.Clock
	owner    models.Actor
	support  models.Actor
	disp     *webhooks.Dispatcher
	recorded chan record
	stop     func() // stops the dispatcher and waits for it
}

type record struct {
	job     models.DeliveryJob
	attempt models.WebhookAttempt
	dec     models.DeliveryDecision
}

// newHarness builds the store and a dispatcher that may reach the loopback
// receivers; start runs it. Unless cfg says otherwise: no jitter, version
// "test", logs discarded.
func newHarness(t *testing.T, cfg webhooks.Config) *harness {
	t.Helper()
	cfg.AllowPrivate = true
	return newGuardedHarness(t, cfg)
}

// newGuardedHarness is newHarness with cfg.AllowPrivate as given.
func newGuardedHarness(t *testing.T, cfg webhooks.Config) *harness {
	t.Helper()
	scfg := models.DefaultConfig()
	scfg.PasswordCost = 4
	scfg.WebhookAllowPrivate = true // the receivers are on loopback
	clock := modelstest.NewClock()
	h := &harness{t: t, ctx: context.Background(), clock: clock, recorded: make(chan record, 1000),
		store: modelstest.Open(t, models.WithConfig(scfg), models.WithClock(clock.Now))}
	if cfg.Jitter == nil {
		cfg.Jitter = func(d time.Duration) time.Duration { return d }
	}
	if cfg.Version == "" {
		cfg.Version = "test"
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg.Recorded = func(j models.DeliveryJob, a models.WebhookAttempt, d models.DeliveryDecision) {
		h.recorded <- record{j, a, d}
	}
	h.disp = webhooks.New(h.store, cfg)
	h.store.OnOutbox(h.disp.Wake)
	owner, _ := modelstest.Owner(t, h.store, "owner@example.com")
	support, err := h.store.CreateUser(h.ctx, models.OperatorActor,
		models.CreateUserInput{Email: "help@example.com", Password: "support password", Role: models.RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	h.owner, h.support = owner.Actor(), support.Actor()
	return h
}

// start runs the dispatcher until the test ends (or stop is called).
func (h *harness) start() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = h.disp.Run(ctx); close(done) }()
	var stopped atomic.Bool
	h.stop = func() {
		if stopped.CompareAndSwap(false, true) {
			cancel()
			<-done
		}
	}
	h.t.Cleanup(h.stop)
}

// next waits for the next stored attempt.
func (h *harness) next() record {
	h.t.Helper()
	select {
	case r := <-h.recorded:
		return r
	case <-time.After(deadline):
		h.t.Fatal("no attempt was recorded in time")
	}
	return record{}
}

// webhook points the owner's endpoint at url and returns it with its token.
func (h *harness) webhook(url string) (*models.WebhookEndpoint, string) {
	h.t.Helper()
	e, token, err := h.store.SetWebhook(h.ctx, h.owner, models.SetWebhookInput{URL: url})
	if err != nil {
		h.t.Fatal(err)
	}
	return e, token
}

func (h *harness) ticket(subject string) *models.Ticket {
	h.t.Helper()
	sev := "sev_2"
	tk, err := h.store.CreateTicket(h.ctx, h.owner, models.CreateTicketInput{Subject: subject, Description: "d",
		Type: models.TicketIncident, Severity: &sev})
	if err != nil {
		h.t.Fatal(err)
	}
	return tk
}

func (h *harness) delivery(id string) *models.DeliveryDetail {
	h.t.Helper()
	d, err := h.store.WebhookDelivery(h.ctx, h.support, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return d
}

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
}

// receiver is a real HTTP server on loopback that reports each request
// and answers it with respond (given the request's 1-based number).
type receiver struct {
	*httptest.Server
	got   chan received
	count atomic.Int32
}

func newReceiver(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, n int)) *receiver {
	t.Helper()
	rc := &receiver{got: make(chan received, 1000)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := int(rc.count.Add(1))
		rc.got <- received{header: r.Header.Clone(), body: body}
		respond(w, r, n)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// next waits for the receiver's next request.
func (rc *receiver) next(t *testing.T) received {
	t.Helper()
	select {
	case r := <-rc.got:
		return r
	case <-time.After(deadline):
		t.Fatal("the receiver got nothing in time")
	}
	return received{}
}

// status answers every request with code.
func status(code int) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(code) }
}

// startDispatcher runs a dispatcher with cfg (quiet unless cfg has a Log,
// private addresses allowed) over store, woken by the store's commits,
// until the test ends. Whatever holds the dispatcher's requests (a
// receiver that hangs) must be released by a cleanup registered after
// this call: cleanups run last first.
func startDispatcher(t *testing.T, ctx context.Context, store *models.Store, cfg webhooks.Config) *webhooks.Dispatcher {
	t.Helper()
	cfg.AllowPrivate = true
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	d := webhooks.New(store, cfg)
	store.OnOutbox(d.Wake)
	ctx, cancel := context.WithCancel(ctx)
	var running sync.WaitGroup
	running.Go(func() { _ = d.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		running.Wait()
	})
	return d
}

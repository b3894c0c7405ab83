// Package webhooks delivers the outbox that models writes: it claims due
// deliveries under a lease, POSTs each event to its endpoint (signed the
// Standard Webhooks way, through a dialer that refuses private addresses),
// logs every attempt and retries on a schedule. Several processes may run
// it against one PostgreSQL database; leases keep them off each other's
// deliveries and hand a crashed process's work to the survivors.
package webhooks

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"cloudplane/handlers/metrics"
	"cloudplane/models"
)

// DefaultSchedule is the wait before each retry: ten attempts over about
// four days.
var DefaultSchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// Defaults of Config. DefaultWorkers is sized for throughput: a delivery
// holds its worker across two database round trips (the claim and the
// attempt's record) besides the request, so the attempts in flight, not
// the CPU, bound deliveries per second; 16 held one server to a few
// hundred a second to 100 endpoints (issue 24's webhook benchmark). A
// worker is a goroutine and at most one connection.
const (
	DefaultTimeout       = 15 * time.Second
	DefaultWorkers       = 64
	DefaultPollInterval  = 5 * time.Second
	DefaultShutdownGrace = 10 * time.Second
)

// Config tunes a Dispatcher; zero values take the defaults.
type Config struct {
	Schedule      []time.Duration // waits before the retries
	Timeout       time.Duration   // for one attempt, connect to last header
	AllowPrivate  bool            // allow private, loopback, link-local hosts and plain http
	Workers       int             // attempts in flight at once
	PollInterval  time.Duration   // fallback when no wake-up comes
	ShutdownGrace time.Duration   // how long in-flight attempts may finish on stop
	Version       string          // in the User-Agent
	Log           *slog.Logger
	Metrics       *metrics.Metrics // counts attempts by outcome; nil: off
	// Jitter spreads a retry delay; nil means ±20% at random.
	Jitter func(time.Duration) time.Duration
	// Recorded, when set, is called after each attempt has been stored.
	Recorded func(models.DeliveryJob, models.WebhookAttempt, models.DeliveryDecision)
}

func (c Config) withDefaults() Config {
	if c.Schedule == nil {
		c.Schedule = DefaultSchedule
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers
	}
	if c.PollInterval <= 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = DefaultShutdownGrace
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	if c.Jitter == nil {
		c.Jitter = jitter
	}
	return c
}

// jitter spreads d by up to 20% either way, so that deliveries failed
// together do not retry together.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// Dispatcher sends pending deliveries. Create it with New, register Wake
// with the store's OnOutbox, and Run it.
type Dispatcher struct {
	store    *models.Store
	cfg      Config
	owner    string        // this dispatcher's lease owner id
	lease    time.Duration // how long a claim holds
	client   *http.Client
	wake     chan struct{}
	finished chan finished // attempts for the recorder to store
	backlog  atomic.Bool   // the last claim filled every worker or held deliveries back: more may be due
	busy     endpointLoad  // attempts in flight here, per endpoint
	working  deliverySet   // the deliveries this dispatcher's workers hold
	due      *time.Time    // NextWebhookDue's last answer (Run's goroutine only)
	dueAsked time.Time     // when it was asked; zero: never
	dueStale atomic.Bool   // a retry was scheduled since: ask again
}

// New returns a dispatcher over store.
func New(store *models.Store, cfg Config) *Dispatcher {
	cfg = cfg.withDefaults()
	return &Dispatcher{
		store: store, cfg: cfg, owner: models.NewID(),
		// An attempt lasts at most Timeout; the rest covers storing it.
		lease:    2*cfg.Timeout + 2*time.Second,
		client:   newClient(cfg),
		wake:     make(chan struct{}, 1),
		finished: make(chan finished, cfg.Workers),
	}
}

// Wake makes Run look for due deliveries now. It never blocks, so the
// store may call it after every commit.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends, then lets attempts in flight finish for up
// to ShutdownGrace, cancels the rest and releases their leases so the next
// process takes them over at once.
func (d *Dispatcher) Run(ctx context.Context) error {
	sends, stopSends := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSends()
	stopRecorder, recorderDone := make(chan struct{}), make(chan struct{})
	go d.record(stopRecorder, recorderDone)
	slots := make(chan struct{}, d.cfg.Workers)
	freed := make(chan struct{}, 1)
	var wg sync.WaitGroup
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			d.drain(&wg, stopSends)
			close(stopRecorder)
			<-recorderDone
			d.releaseAll()
			return nil
		case <-d.wake:
		case <-freed:
		case <-timer.C:
		}
		timer.Reset(d.nextPoll(ctx, d.dispatch(ctx, sends, slots, freed, &wg)))
	}
}

// claimOutcome is what the last round of claims left.
type claimOutcome int

const (
	claimedAllDue claimOutcome = iota // nothing due was left (or the claim failed)
	workersBusy                       // every worker is busy
	heldBack                          // due deliveries wait for their account's or endpoint's share
)

// dispatch claims as many due deliveries as there are idle workers and
// starts them, until fewer are due.
func (d *Dispatcher) dispatch(ctx, sends context.Context, slots, freed chan struct{}, wg *sync.WaitGroup) claimOutcome {
	for {
		idle := cap(slots) - len(slots)
		if idle == 0 {
			d.backlog.Store(true)
			return workersBusy
		}
		claimed, err := d.claim(ctx, idle)
		if err != nil {
			if ctx.Err() == nil {
				// A coded error's text says only that the database is
				// unavailable; what the driver said is its cause.
				d.cfg.Log.Error("webhooks: claiming deliveries failed", "err", err, "cause", errors.Unwrap(err))
				d.releaseIdle(ctx)
			}
			return claimedAllDue
		}
		for _, job := range claimed.Jobs {
			slots <- struct{}{}
			wg.Add(1)
			d.busy.add(job.EndpointID, 1)
			d.working.add(job.DeliveryID)
			go func() {
				defer wg.Done()
				d.deliver(sends, job)
				d.working.remove(job.DeliveryID)
				<-slots
				// An endpoint this process kept at its cap may have more
				// due: claim for its freed slot now rather than at the
				// next poll. With a backlog, claim again once a quarter of
				// the workers are idle: one claim per finished attempt
				// would make the claim's commit the bottleneck.
				wasFull := d.busy.add(job.EndpointID, -1) >= d.store.WebhookEndpointConcurrency()
				if wasFull || d.backlog.Load() && cap(slots)-len(slots) >= max(1, cap(slots)/4) {
					select {
					case freed <- struct{}{}:
					default:
					}
				}
			}()
		}
		if len(claimed.Jobs) < idle {
			d.backlog.Store(claimed.HeldBack)
			if claimed.HeldBack {
				return heldBack
			}
			return claimedAllDue
		}
	}
}

// claim leases up to idle due deliveries. The leases count from the
// start of its transaction, so the time it takes comes out of the lease:
// bounded far below it, the attempt keeps its whole Timeout and storing
// it keeps a margin before another dispatcher may take the delivery.
func (d *Dispatcher) claim(ctx context.Context, idle int) (models.ClaimedWebhooks, error) {
	ctx, cancel := context.WithTimeout(ctx, d.claimTimeout())
	defer cancel()
	return d.store.ClaimWebhooks(ctx, models.WebhookClaim{Owner: d.owner, Limit: idle,
		Lease: d.lease, Reserve: d.reserve()})
}

// maxClaimTime bounds a claim. It reads a few rows per enabled endpoint
// and commits once; taking longer means the database is struggling, and
// claiming again later beats eating into the attempt's time.
const maxClaimTime = 5 * time.Second

// claimTimeout is maxClaimTime, or a quarter of the lease when that is
// shorter (an attempt Timeout under 1.5 s).
func (d *Dispatcher) claimTimeout() time.Duration { return min(maxClaimTime, d.lease/4) }

// releaseIdle gives back the leases of this dispatcher that no worker of
// its holds, after a failed claim: on PostgreSQL a deadline firing during
// COMMIT fails the claim after its leases were committed, and they would
// count against their accounts' shares until they expired.
func (d *Dispatcher) releaseIdle(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, d.claimTimeout())
	defer cancel()
	if err := d.store.ReleaseIdleWebhookLeases(ctx, d.owner, d.working.list()); err != nil && ctx.Err() == nil {
		d.cfg.Log.Error("webhooks: releasing the leases of a failed claim failed", "err", err)
	}
}

// reserve is how many workers a claim keeps for accounts with nothing in
// flight: a quarter, so that accounts whose receivers hang hold at most
// the other three quarters and a newly active account never waits for
// their timeouts.
func (d *Dispatcher) reserve() int { return d.cfg.Workers / 4 }

// nextPoll is how long to wait for a wake-up before looking again: until
// the next delivery falls due, at most PollInterval. Workers finishing
// wake the loop when all are busy; while deliveries are held back for
// their share, it also looks again every heldBackPoll, for other
// accounts' retries falling due.
func (d *Dispatcher) nextPoll(ctx context.Context, last claimOutcome) time.Duration {
	wait := d.cfg.PollInterval
	if last == workersBusy || ctx.Err() != nil {
		return wait
	}
	// A floor keeps a delivery that is due but cannot be claimed (another
	// process holds it, or it waits for its share) from turning the loop
	// into a spin.
	floor := 50 * time.Millisecond
	if last == heldBack {
		floor = heldBackPoll
	}
	due, err := d.nextDue(ctx)
	if err != nil || due == nil {
		return wait
	}
	return min(wait, max(due.Sub(d.store.Now()), floor))
}

// dueReuse is how long the answer of NextWebhookDue is reused. Under a
// stream of events the loop runs once per commit, and asking again each
// time cost a tenth of a busy server's CPU (issue 24's webhook benchmark)
// for an answer those commits' wake-ups make moot: what is due now is
// claimed anyway. The answer is as stale as it was after a sleep of this
// length, which the 50 ms floor already allows, except that a retry this
// dispatcher schedules makes it ask again.
const dueReuse = 50 * time.Millisecond

// nextDue is NextWebhookDue, asked at most once per dueReuse.
func (d *Dispatcher) nextDue(ctx context.Context) (*time.Time, error) {
	now := time.Now()
	if !d.dueStale.Swap(false) && !d.dueAsked.IsZero() && now.Sub(d.dueAsked) < dueReuse {
		return d.due, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d.lease/2)
	defer cancel()
	due, err := d.store.NextWebhookDue(ctx)
	if err != nil {
		return nil, err
	}
	d.due, d.dueAsked = due, now
	return due, nil
}

// heldBackPoll is how often the dispatcher looks for due deliveries while
// some are held back for their share and no attempt ends meanwhile.
const heldBackPoll = time.Second

// deliver makes one attempt and stores it with the decision it leads to.
// An attempt cut short by shutdown is not an attempt: the lease is
// released instead, and the delivery is due again at once elsewhere.
func (d *Dispatcher) deliver(ctx context.Context, job models.DeliveryJob) {
	attempt := d.send(ctx, job)
	if ctx.Err() != nil && attempt.StatusCode == 0 {
		release, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.store.ReleaseWebhookDeliveries(release, d.owner, job.DeliveryID); err != nil {
			d.cfg.Log.Error("webhooks: releasing a delivery failed", "delivery", job.DeliveryID, "err", err)
		}
		return
	}
	dec := d.decide(job, attempt)
	if dec.Stopped {
		attempt.ErrorKind = KindStopped
		attempt.Error += "; the receiver asked not to retry (" + StopRetryingHeader + ")"
	}
	if err := d.keep(models.AttemptRecord{Job: job, Attempt: attempt, Decision: dec}); err != nil {
		d.cfg.Log.Error("webhooks: recording an attempt failed", "delivery", job.DeliveryID, "err", err)
		return
	}
	if dec.RetryAt != nil {
		d.dueStale.Store(true)
	}
	d.logAttempt(job, attempt, dec)
	d.cfg.Metrics.WebhookDelivery(outcome(attempt, dec))
	if d.cfg.Recorded != nil {
		d.cfg.Recorded(job, attempt, dec)
	}
}

func (d *Dispatcher) logAttempt(job models.DeliveryJob, a models.WebhookAttempt, dec models.DeliveryDecision) {
	switch outcome(a, dec) {
	case metrics.DeliverySucceeded:
		d.cfg.Log.Debug("webhook delivered", "delivery", job.DeliveryID, "event", job.EventID, "status", a.StatusCode)
	case metrics.DeliveryDisabled:
		d.cfg.Log.Warn("webhook endpoint disabled", "endpoint", job.EndpointID, "reason", dec.DisableEndpoint)
	case metrics.DeliveryFailed:
		d.cfg.Log.Warn("webhook delivery failed for good", "delivery", job.DeliveryID, "error", a.Error)
	default:
		d.cfg.Log.Info("webhook attempt failed", "delivery", job.DeliveryID, "error", a.Error, "retry_at", dec.RetryAt)
	}
}

// outcome names what an attempt led to, for the log and the metrics.
func outcome(a models.WebhookAttempt, dec models.DeliveryDecision) metrics.Outcome {
	switch {
	case a.Succeeded:
		return metrics.DeliverySucceeded
	case dec.DisableEndpoint != "":
		return metrics.DeliveryDisabled
	case dec.RetryAt == nil:
		return metrics.DeliveryFailed
	}
	return metrics.DeliveryRetried
}

// drain waits for attempts in flight, up to ShutdownGrace, then cancels
// the rest.
func (d *Dispatcher) drain(wg *sync.WaitGroup, stopSends context.CancelFunc) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	grace := time.NewTimer(d.cfg.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		stopSends()
		<-done
	}
}

// releaseAll gives back whatever this dispatcher still holds (normally
// nothing by now), so the next process need not wait for leases to expire.
func (d *Dispatcher) releaseAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.store.ReleaseWebhookDeliveries(ctx, d.owner); err != nil {
		d.cfg.Log.Error("webhooks: releasing leases on shutdown failed", "err", err)
	}
}

// endpointLoad counts attempts in flight per endpoint. It only decides
// when to claim again; the cap itself is counted from leases in the
// database, across processes.
type endpointLoad struct {
	mu sync.Mutex
	n  map[string]int
}

// add changes endpoint's count by delta and returns the count before.
func (l *endpointLoad) add(endpoint string, delta int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	before := l.n[endpoint]
	if l.n[endpoint] = before + delta; l.n[endpoint] == 0 {
		delete(l.n, endpoint)
	}
	return before
}

// deliverySet is the deliveries the workers are attempting, whose leases
// a release after a failed claim must keep.
type deliverySet struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

func (w *deliverySet) add(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ids == nil {
		w.ids = map[string]struct{}{}
	}
	w.ids[id] = struct{}{}
}

func (w *deliverySet) remove(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.ids, id)
}

func (w *deliverySet) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Collect(maps.Keys(w.ids))
}

// Package mail sends the mail outbox: a worker claims due messages under
// a lease (models.ClaimMail), renders each from its kind and data
// (views/mail), hands it to a Sender (SMTP, or the log when no server is
// configured) and records the outcome, retrying failures with backoff.
// Several workers, on several replicas, share one outbox: a message is
// sent by the one holding its lease, so none is lost on a crash (its
// lease expires and another worker takes it) and none is sent twice in
// normal operation.
package mail

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"cloudplane/models"
)

// Defaults of Config.
const (
	DefaultTimeout = 30 * time.Second
	DefaultPoll    = 5 * time.Second
	DefaultBatch   = 10
)

// DefaultSchedule is the wait before each retry: a message fails for good
// after its last, about a day after it was queued.
var DefaultSchedule = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute,
	30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 16 * time.Hour}

// Outgoing is a rendered message.
type Outgoing struct {
	To, Subject, Text, HTML string
}

// Sender delivers one rendered message; an error wrapped by permanent
// is not retried.
type Sender interface {
	Send(ctx context.Context, o Outgoing) error
}

type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

// permanent marks err as one no retry can mend.
func permanent(err error) error { return permanentError{err} }

// Config is the worker's.
type Config struct {
	Store   *models.Store
	Sender  Sender
	BaseURL string // the dashboard's public URL, for links
	Log     *slog.Logger
	// Schedule is the wait before each retry (DefaultSchedule when nil);
	// each is jittered by up to a tenth so retries of many messages
	// spread out.
	Schedule []time.Duration
	Timeout  time.Duration // one message's send (DefaultTimeout)
	Poll     time.Duration // how often to look for due retries (DefaultPoll)
	Batch    int           // messages claimed at once (DefaultBatch)
	// Owner is the lease owner id; random when empty.
	Owner string
	// StopGrace bounds a send in flight once Run's ctx ends (serve gives
	// it half of --shutdown-timeout): a send finished by then is recorded
	// as sent, one cut short as a failed attempt, before Run returns.
	// Zero leaves it bounded by Timeout alone.
	StopGrace time.Duration
}

// Worker sends the outbox.
type Worker struct {
	cfg  Config
	wake chan struct{}
}

// New returns a worker; Run starts it.
func New(cfg Config) *Worker {
	if cfg.Schedule == nil {
		cfg.Schedule = DefaultSchedule
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.Owner == "" {
		cfg.Owner = models.NewID()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Worker{cfg: cfg, wake: make(chan struct{}, 1)}
}

// Wake makes the worker look for due mail now (models.Store.OnMail).
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// lease is how long a claim holds: every message of a batch may take its
// whole timeout, sent one after another, with one more to record the
// outcomes. A message whose worker died is sent by another once it ends.
func (w *Worker) lease() time.Duration {
	return time.Duration(w.cfg.Batch+1) * w.cfg.Timeout
}

// Run sends due mail until ctx ends. A message being sent when ctx ends
// is finished (within Timeout) and recorded, so stopping sends nothing
// twice; the rest of the batch is released for another worker.
func (w *Worker) Run(ctx context.Context) error {
	for {
		jobs, err := w.cfg.Store.ClaimMail(ctx, w.cfg.Owner, w.cfg.Batch, w.lease())
		if err != nil && ctx.Err() == nil {
			w.cfg.Log.Warn("mail: claiming the outbox failed", "err", err)
		}
		for i, job := range jobs {
			if ctx.Err() != nil {
				ids := make([]string, 0, len(jobs)-i)
				for _, j := range jobs[i:] {
					ids = append(ids, j.ID)
				}
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.Timeout)
				err := w.cfg.Store.ReleaseMail(rctx, w.cfg.Owner, ids)
				cancel()
				if err != nil {
					w.cfg.Log.Warn("mail: releasing leases failed", "err", err)
				}
				break
			}
			w.attempt(ctx, job)
		}
		if len(jobs) == w.cfg.Batch && ctx.Err() == nil {
			continue // more may be due
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.wake:
		case <-time.After(w.cfg.Poll):
		}
	}
}

// attempt renders and sends one message and records how it went.
func (w *Worker) attempt(ctx context.Context, job models.MailJob) {
	// Another worker may hold the message now if this one's claim ran
	// out while earlier messages were sent: renew the lease (send and
	// record each take at most Timeout), or leave the message alone.
	bg := context.WithoutCancel(ctx)
	rctx, rcancel := context.WithTimeout(bg, w.cfg.Timeout)
	held, err := w.cfg.Store.RenewMailLease(rctx, w.cfg.Owner, job.ID, 3*w.cfg.Timeout)
	if err == nil && held {
		var ok bool
		job, ok, err = w.cfg.Store.ResolveMail(rctx, w.cfg.Owner, job)
		held = ok
	}
	rcancel()
	if err != nil {
		w.cfg.Log.Warn("mail: preparing a message failed; it is retried when its lease ends", "id", job.ID, "err", err)
		return
	} else if !held {
		w.cfg.Log.Info("mail: the lease ran out before sending, or the message was dropped; left to its holder", "id", job.ID)
		return
	}
	// The send is not cut short by ctx at once: a message half-sent when
	// the server stops would be sent again by the next worker. Timeout
	// bounds the whole conversation, and StopGrace a send under way when
	// the worker stops.
	sendCtx, cancel := context.WithTimeout(bg, w.cfg.Timeout)
	defer cancel()
	if w.cfg.StopGrace > 0 {
		stop := context.AfterFunc(ctx, func() { time.AfterFunc(w.cfg.StopGrace, cancel) })
		defer stop()
	}
	out, err := Render(job, w.cfg.BaseURL)
	if err == nil {
		err = w.cfg.Sender.Send(sendCtx, out)
	}
	o := models.MailOutcome{ID: job.ID}
	if lo, ok := w.cfg.Sender.(interface{ LogOnly() bool }); ok && err == nil {
		o.LogOnly = lo.LogOnly()
	}
	if err != nil {
		o.Error = err.Error()
		if retry := w.retryAt(job, err); retry != nil {
			o.Retry = retry
		}
		w.cfg.Log.Warn("mail: sending failed", "id", job.ID, "kind", job.Kind, "attempt", job.Attempts+1,
			"retry_at", o.Retry, "err", err)
	}
	// Recorded even while stopping, within a bound of its own: the send
	// may have used up sendCtx's.
	recordCtx, cancelRecord := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.Timeout)
	defer cancelRecord()
	held, rerr := w.cfg.Store.RecordMailAttempt(recordCtx, w.cfg.Owner, o)
	if rerr != nil {
		w.cfg.Log.Error("mail: recording an attempt failed; the message is retried when its lease ends",
			"id", job.ID, "err", rerr)
	} else if !held {
		w.cfg.Log.Warn("mail: the lease ran out during an attempt", "id", job.ID)
	}
}

// retryAt is when to try again after job's attempt failed with err, or
// nil to give up: a permanent error, the schedule run out, or the retry
// falling after the message's links expire.
func (w *Worker) retryAt(job models.MailJob, err error) *time.Time {
	var p permanentError
	if errors.As(err, &p) || job.Attempts >= len(w.cfg.Schedule) {
		return nil
	}
	wait := w.cfg.Schedule[job.Attempts]
	wait += time.Duration(rand.Int64N(int64(wait)/10 + 1))
	at := w.cfg.Store.Now().Add(wait)
	if exp := models.MailExpiry(job); !exp.IsZero() && !at.Before(exp) {
		return nil
	}
	return &at
}

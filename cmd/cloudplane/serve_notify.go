package main

import (
	"context"
	"log/slog"
	"time"

	"cloudplane/models"
)

// notifySweepEvery is how often serve looks for time-based notifications
// (an endpoint failing for an hour, a key expiring within 7 days). Each
// is queued once whatever the number of replicas sweeping, so every
// replica sweeps; a minute keeps the hour's notice close to an hour.
const notifySweepEvery = time.Minute

// startNotificationSweep runs models.SweepNotifications now and every
// notifySweepEvery until stop is called (see startSweep).
func startNotificationSweep(store *models.Store, log *slog.Logger) (stop func()) {
	return startSweep(notifySweepEvery, store.SweepNotifications,
		sweepLog(log, "notification sweep failed", "notifications queued", "mails"))
}

// sweepLog logs a sweep's failure, or what it did when it did anything.
func sweepLog(log *slog.Logger, failed, done, unit string) func(int, error) {
	return func(n int, err error) {
		switch {
		case err != nil:
			log.Error(failed, "err", err)
		case n > 0:
			log.Info(done, unit, n)
		}
	}
}

// startSweep runs sweep now and every every until stop is called, telling
// report what each run did (but not a run cut short by stop); stop waits
// for a sweep under way, which its cancelled context cuts short (its
// transaction rolls back, and the next replica's sweep does what it would
// have).
func startSweep(every time.Duration, sweep func(context.Context) (int, error), report func(int, error)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		ticker := time.NewTicker(every)
		defer ticker.Stop()
		for {
			n, err := sweep(ctx)
			if ctx.Err() == nil || err == nil {
				report(n, err)
			}
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

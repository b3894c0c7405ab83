package main

import (
	"context"
	"log/slog"
	"time"

	"cloudplane/models"
)

// idempotencyPruneEvery is how often expired Idempotency-Key answers are
// deleted. Expired ones are never replayed anyway; this bounds the table.
const idempotencyPruneEvery = time.Hour

// startIdempotencyPruning deletes expired Idempotency-Key answers now and
// every hour until the returned function stops it. Replicas may all run
// it: the delete is the same whoever runs it.
func startIdempotencyPruning(store *models.Store, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		ticker := time.NewTicker(idempotencyPruneEvery)
		defer ticker.Stop()
		for {
			n, err := store.PruneIdempotencyKeys(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				log.Error("pruning expired idempotency keys failed", "err", err)
			case n > 0:
				log.Info("pruned expired idempotency keys", "keys", n)
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

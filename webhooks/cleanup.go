package webhooks

import (
	"context"
	"log/slog"
	"time"

	"cloudplane/models"
)

// DefaultRetention is how long the delivery log is kept.
const DefaultRetention = 30 * 24 * time.Hour

// Prune is the retention job: now and then every interval until ctx ends,
// it deletes the delivery log of events older than retention.
func Prune(ctx context.Context, store *models.Store, retention, interval time.Duration, log *slog.Logger) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		n, err := store.PruneWebhookLog(ctx, store.Now().Add(-retention))
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("webhooks: pruning the delivery log failed", "err", err)
		case n > 0:
			log.Info("webhooks: pruned the delivery log", "deliveries", n, "older_than", retention)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

package webhooks

import (
	"context"
	"log/slog"
	"time"

	"cloudplane/models"
)

// DefaultRetention is how long the delivery log is kept.
const DefaultRetention = 30 * 24 * time.Hour

// Prune is the server's retention job: now and then every interval until
// ctx ends, it deletes the delivery log of events older than retention,
// and the ticket attachments whose upload URL expired before they were
// completed (they already hold no quota; this frees their rows and bytes),
// and it disables the endpoints that have failed for too long.
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
		if n, err := store.PruneExpiredAttachments(ctx); err != nil && ctx.Err() == nil {
			log.Error("pruning expired ticket attachments failed", "err", err)
		} else if n > 0 {
			log.Info("pruned expired ticket attachments", "attachments", n)
		}
		if n, err := store.DisableFailingWebhookEndpoints(ctx); err != nil && ctx.Err() == nil {
			log.Error("webhooks: disabling failing endpoints failed", "err", err)
		} else if n > 0 {
			log.Warn("webhooks: disabled endpoints whose deliveries all failed for 5 days", "endpoints", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

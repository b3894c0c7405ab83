package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"cloudplane/handlers"
	"cloudplane/handlers/metrics"
	"cloudplane/models"
)

// scrapeTimeout bounds the queries a metrics scrape makes.
const scrapeTimeout = 2 * time.Second

type observeFlags struct {
	metricsAddr, logFormat string
	accessLog              bool
}

func (o *observeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.logFormat, "log-format", "text", "text or json")
	fs.BoolVar(&o.accessLog, "access-log", true, "log one line per request at level info (written in batches)")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "",
		"serve Prometheus metrics at /metrics on this separate address (e.g. 127.0.0.1:9090); off when empty")
}

// newMetrics returns the process's metrics, or nil when --metrics-addr is
// empty: every metrics call is then a no-op.
func (o *observeFlags) newMetrics(b buildInfo) *metrics.Metrics {
	if o.metricsAddr == "" {
		return nil
	}
	return metrics.New(metrics.Build{Version: b.Version, Commit: b.commit(), GoVersion: b.GoVersion})
}

// watchStore adds the database pool and the webhook queue to m.
func watchStore(m *metrics.Metrics, store *models.Store) error {
	if m == nil {
		return nil
	}
	sqlDB, err := store.DB().DB()
	if err != nil {
		return err
	}
	m.WatchDatabase(sqlDB)
	m.WatchWebhookQueue(webhookQueue(store), store.Now, scrapeTimeout)
	return nil
}

// webhookQueue reads the store's webhook queue as the metrics show it.
func webhookQueue(store *models.Store) func(context.Context) (metrics.WebhookQueue, error) {
	return func(ctx context.Context) (metrics.WebhookQueue, error) {
		q, err := store.WebhookQueueState(ctx)
		return metrics.WebhookQueue{Pending: q.Pending, OldestDue: q.OldestDue}, err
	}
}

// startMetrics serves m on --metrics-addr, apart from the API like the
// profiler, and returns the function that stops it.
func startMetrics(o observeFlags, m *metrics.Metrics, log *slog.Logger) (stop func(), err error) {
	if m == nil {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", o.metricsAddr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	srv := serveAside(ln, "/metrics", m.Handler(), log)
	log.Info("metrics listening", "addr", "http://"+ln.Addr().String()+"/metrics")
	return func() { _ = srv.Close() }, nil
}

// openRedis connects to --redis-url, or returns nil when it is empty.
func openRedis(url string) (*redis.Client, error) {
	if url == "" {
		return nil, nil
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("--redis-url: %w", err)
	}
	return redis.NewClient(opts), nil
}

// dependencies are what /readyz checks besides the database.
func dependencies(rdb *redis.Client) []handlers.Dependency {
	if rdb == nil {
		return nil
	}
	return []handlers.Dependency{{Name: "redis", Ping: func(ctx context.Context) error {
		return rdb.Ping(ctx).Err()
	}}}
}

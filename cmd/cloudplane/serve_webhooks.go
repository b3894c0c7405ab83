package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"cloudplane/models"
	"cloudplane/webhooks"
)

type webhookFlags struct {
	allowPrivate bool
	schedule     string
	timeout      time.Duration
	retention    time.Duration
	workers      int
	perEndpoint  int
	perAccount   int
	secretGrace  time.Duration
}

func (w *webhookFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&w.allowPrivate, "webhook-allow-private", false,
		"let webhooks reach private, loopback and link-local hosts, and plain http (development only)")
	fs.StringVar(&w.schedule, "webhook-retry-schedule", formatSchedule(webhooks.DefaultSchedule),
		"waits before each webhook retry, comma-separated durations (each spread by ±20%), or none")
	fs.DurationVar(&w.timeout, "webhook-timeout", webhooks.DefaultTimeout, "time a webhook receiver has to answer")
	fs.DurationVar(&w.retention, "webhook-retention", webhooks.DefaultRetention, "how long the webhook delivery log is kept")
	fs.IntVar(&w.workers, "webhook-workers", webhooks.DefaultWorkers, "webhook deliveries in flight at once")
	fs.IntVar(&w.perEndpoint, "webhook-endpoint-workers", models.DefaultWebhookEndpointConcurrency,
		"webhook deliveries in flight at once to one endpoint, across replicas")
	fs.IntVar(&w.perAccount, "webhook-account-workers", models.DefaultWebhookAccountConcurrency,
		"webhook deliveries in flight at once to all of one account's endpoints, across replicas")
	fs.DurationVar(&w.secretGrace, "webhook-secret-grace", models.DefaultWebhookSecretGrace,
		"how long a rotated-away webhook signing secret keeps signing beside the new one")
}

// config checks the flags and turns them into the dispatcher's settings.
func (w *webhookFlags) config() (webhooks.Config, error) {
	schedule, err := parseSchedule(w.schedule)
	if err != nil {
		return webhooks.Config{}, fmt.Errorf("--webhook-retry-schedule: %w", err)
	}
	switch {
	case w.timeout <= 0:
		return webhooks.Config{}, fmt.Errorf("--webhook-timeout must be positive")
	case w.retention <= 0:
		return webhooks.Config{}, fmt.Errorf("--webhook-retention must be positive")
	case w.workers <= 0:
		return webhooks.Config{}, fmt.Errorf("--webhook-workers must be positive")
	case w.perEndpoint <= 0:
		return webhooks.Config{}, fmt.Errorf("--webhook-endpoint-workers must be positive")
	case w.perAccount <= 0:
		return webhooks.Config{}, fmt.Errorf("--webhook-account-workers must be positive")
	case w.secretGrace <= 0:
		return webhooks.Config{}, fmt.Errorf("--webhook-secret-grace must be positive")
	}
	return webhooks.Config{Schedule: schedule, Timeout: w.timeout, AllowPrivate: w.allowPrivate,
		Workers: w.workers, Version: readBuild().Version}, nil
}

func parseSchedule(s string) ([]time.Duration, error) {
	if strings.TrimSpace(s) == "none" {
		return []time.Duration{}, nil
	}
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%q is not a positive duration such as 5s or 2h", strings.TrimSpace(part))
		}
		out = append(out, d)
	}
	return out, nil
}

// formatSchedule writes durations the short way: 2h, not 2h0m0s.
func formatSchedule(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		s := d.String()
		if strings.HasSuffix(s, "m0s") {
			s = s[:len(s)-2]
		}
		if strings.HasSuffix(s, "h0m") {
			s = s[:len(s)-2]
		}
		parts[i] = s
	}
	return strings.Join(parts, ",")
}

// startWebhooks runs the dispatcher, woken by every committed event, and
// the retention job, until the returned function stops them; it returns
// once in-flight deliveries have finished or been released.
func startWebhooks(store *models.Store, cfg webhooks.Config, retention time.Duration) (stop func()) {
	dispatcher := webhooks.New(store, cfg)
	store.OnOutbox(dispatcher.Wake)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = dispatcher.Run(ctx) }()
	go func() { defer wg.Done(); webhooks.Prune(ctx, store, retention, time.Hour, cfg.Log) }()
	cfg.Log.Info("webhook dispatcher started", "timeout", cfg.Timeout, "workers", cfg.Workers,
		"allow_private", cfg.AllowPrivate, "retention", retention)
	return func() {
		cancel()
		wg.Wait()
		cfg.Log.Info("webhook dispatcher stopped")
	}
}

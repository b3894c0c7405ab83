package api_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/metrics"
	"cloudplane/handlers/observe"
	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// BenchmarkReadPath is the read path as the server runs it by default:
// GET /api/v1/filesystems of ten filesystems, with the server's logger
// (access log on, written in batches to a discarding output), beside the
// same with request metrics on, and with both off; the differences are
// what observability costs per request.
func BenchmarkReadPath(b *testing.B) {
	store := modelstest.Open(b)
	owner, key := modelstest.Owner(b, store, "bench@example.com")
	for i := 1; i <= 10; i++ {
		in := models.CreateFilesystemInput{Name: fmt.Sprintf("filesystem-%02d", i), Region: "us-east-1"}
		if _, err := store.CreateFilesystem(context.Background(), owner.Actor(), in); err != nil {
			b.Fatal(err)
		}
	}
	out := observe.NewLogWriter(io.Discard, observe.DefaultLogBuffer, observe.DefaultLogFlush)
	b.Cleanup(func() { _ = out.Close() })
	log, err := observe.NewLogger(out, "text", "info")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		metrics     bool
		noAccessLog bool
	}{{"defaults", false, false}, {"log+metrics", true, false}, {"no-observability", false, true}} {
		b.Run(tc.name, func(b *testing.B) {
			general, err := ratelimit.NewMemory(ratelimit.Quota{Rate: time.Nanosecond, Burst: 1 << 40})
			if err != nil {
				b.Fatal(err)
			}
			cfg := handlers.Config{Store: store, Log: log, Limits: api.Limits{General: general}, NoAccessLog: tc.noAccessLog}
			if tc.metrics {
				cfg.Metrics = metrics.New(metrics.Build{})
			}
			benchGet(b, handlers.New(cfg).Handler(), key, "/api/v1/filesystems", 200)
		})
	}
}

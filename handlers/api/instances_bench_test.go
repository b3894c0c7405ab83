package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/models/modelstest"
)

// BenchmarkInstanceListGet is GET /api/v1/instances of eight active
// instances (modelstest.EightInstances): "unchanged" reads an account
// whose objects did not change since the last read, "changed" one whose
// version moved just before (not timed), so the list is read and encoded
// again.
//
//	go test ./handlers/api -run '^$' -bench InstanceListGet
func BenchmarkInstanceListGet(b *testing.B) {
	store, owner, key := modelstest.EightInstances(b)
	general, err := ratelimit.NewMemory(ratelimit.Quota{Rate: time.Nanosecond, Burst: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	h := handlers.New(handlers.Config{Store: store, Limits: api.Limits{General: general}, NoAccessLog: true}).Handler()
	b.Run("unchanged", func(b *testing.B) { benchGet(b, h, key, "/api/v1/instances", 200) })
	b.Run("changed", func(b *testing.B) {
		var ctx fasthttp.RequestCtx
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if err := store.AccountChanged(context.Background(), *owner.AccountID); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			get(b, h, &ctx, key, "/api/v1/instances", 200)
		}
	})
}

package api_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// benchApp is the benchmark harness's setup in miniature: an account with
// ten filesystems, rate limiting on (wide open unless quota says otherwise),
// and the app's fasthttp handler, called without a network in between.
func benchApp(b *testing.B, quota ratelimit.Quota) (fasthttp.RequestHandler, string) {
	b.Helper()
	store := modelstest.Open(b)
	owner, key := modelstest.Owner(b, store, "bench@example.com")
	for i := 1; i <= 10; i++ {
		in := models.CreateFilesystemInput{Name: fmt.Sprintf("filesystem-%02d", i), Region: "us-east-1"}
		if _, err := store.CreateFilesystem(context.Background(), owner.Actor(), in); err != nil {
			b.Fatal(err)
		}
	}
	general, err := ratelimit.NewMemory(quota)
	if err != nil {
		b.Fatal(err)
	}
	app := handlers.New(handlers.Config{Store: store, Limits: api.Limits{General: general}})
	return app.Handler(), key
}

func benchGet(b *testing.B, h fasthttp.RequestHandler, key, path string, want int) {
	b.Helper()
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	for b.Loop() {
		get(b, h, &ctx, key, path, want)
	}
}

func get(b *testing.B, h fasthttp.RequestHandler, ctx *fasthttp.RequestCtx, key, path string, want int) {
	ctx.Request.Reset()
	ctx.Response.Reset()
	ctx.Request.Header.SetMethod(fasthttp.MethodGet)
	ctx.Request.SetRequestURI(path)
	ctx.Request.Header.Set(fasthttp.HeaderAuthorization, "Bearer "+key)
	h(ctx)
	if got := ctx.Response.StatusCode(); got != want {
		b.Fatalf("status %d, want %d: %s", got, want, ctx.Response.Body())
	}
}

// BenchmarkListFilesystems is the API's hot path: an authenticated,
// rate-limited GET /api/v1/filesystems of ten filesystems.
func BenchmarkListFilesystems(b *testing.B) {
	h, key := benchApp(b, ratelimit.Quota{Rate: time.Nanosecond, Burst: 1 << 40})
	benchGet(b, h, key, "/api/v1/filesystems", 200)
}

// BenchmarkListFilesystemsParallel is the hot path from many goroutines
// at once, as the server runs it.
func BenchmarkListFilesystemsParallel(b *testing.B) {
	h, key := benchApp(b, ratelimit.Quota{Rate: time.Nanosecond, Burst: 1 << 40})
	b.ReportAllocs()
	b.SetParallelism(32)
	b.RunParallel(func(pb *testing.PB) {
		var ctx fasthttp.RequestCtx
		for pb.Next() {
			get(b, h, &ctx, key, "/api/v1/filesystems", 200)
		}
	})
}

// BenchmarkRateLimited is one key flooding past its limit: every request
// is answered 429 without reaching the database.
func BenchmarkRateLimited(b *testing.B) {
	h, key := benchApp(b, ratelimit.Quota{Rate: time.Hour, Burst: 1})
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(fasthttp.MethodGet)
	ctx.Request.SetRequestURI("/api/v1/filesystems")
	ctx.Request.Header.Set(fasthttp.HeaderAuthorization, "Bearer "+key)
	h(&ctx) // the one request the burst allows
	benchGet(b, h, key, "/api/v1/filesystems", 429)
}

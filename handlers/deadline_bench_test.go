package handlers

import (
	"context"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// BenchmarkDeadline is the deadline middleware alone around a handler
// that answers at once: one that never looks at its context's end, one
// that waits on it as a batched account-version read does (selects on
// Done, which has not ended), and the same handler without the
// middleware. The differences are what the deadline costs a request.
func BenchmarkDeadline(b *testing.B) {
	stopping, stop := context.WithCancel(context.Background())
	defer stop()
	answered := make(chan struct{})
	close(answered)
	for _, tc := range []struct {
		name    string
		use     bool
		handler fiber.Handler
	}{
		{"deadline", true, func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }},
		{"deadline+done", true, func(c *fiber.Ctx) error {
			select {
			case <-answered:
			case <-c.UserContext().Done():
				return c.UserContext().Err()
			}
			return c.SendStatus(fiber.StatusOK)
		}},
		{"none", false, func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			app := fiber.New()
			if tc.use {
				app.Use(deadline(stopping, DefaultRequestTimeout))
			}
			app.Get("/api/v1/filesystems", tc.handler)
			h := app.Handler()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var ctx fasthttp.RequestCtx
				for pb.Next() {
					ctx.Request.Reset()
					ctx.Response.Reset()
					ctx.Request.Header.SetMethod(fasthttp.MethodGet)
					ctx.Request.SetRequestURI("/api/v1/filesystems")
					h(&ctx)
				}
			})
		})
	}
}

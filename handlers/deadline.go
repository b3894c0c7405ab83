package handlers

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
)

// DefaultRequestTimeout bounds a request when Config leaves it unset.
const DefaultRequestTimeout = 30 * time.Second

// deadline gives every request a context that ends after d, or when
// stopping ends (the server's drain period is over), whichever is first.
// Domain operations take c.UserContext(), so the deadline reaches the
// database: a database that does not answer costs a request d, not as
// long as it is gone. fiber's middleware/timeout is not used: it wraps
// handlers one by one and answers 408, where a database too slow is 503.
func deadline(stopping context.Context, d time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		// Derived from the request's context, which carries the request
		// id for logs; stopping cancels it too.
		ctx, cancel := context.WithTimeout(c.UserContext(), d)
		unhook := context.AfterFunc(stopping, cancel)
		c.SetUserContext(ctx)
		err := c.Next()
		unhook()
		cancel()
		// The error page is rendered after this returns, and templ
		// refuses to render into an ended context. What later middleware
		// added to the context (the request id for logs) is kept.
		c.SetUserContext(context.WithoutCancel(c.UserContext()))
		return err
	}
}

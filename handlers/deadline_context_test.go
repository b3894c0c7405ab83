package handlers

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

type deadlineTestKey struct{}

// serveOnce runs one request through the deadline middleware (after a
// middleware that puts a value in the context, as the request id is) and
// returns the context its handler was given, once the answer is back.
func serveOnce(t *testing.T, stopping context.Context, d time.Duration, handler func(ctx context.Context)) context.Context {
	t.Helper()
	ctx, err := serveDeadline(stopping, d, handler)
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

func serveDeadline(stopping context.Context, d time.Duration, handler func(ctx context.Context)) (context.Context, error) {
	app := fiber.New()
	app.Use(func(c *fiber.Ctx) error {
		c.SetUserContext(context.WithValue(c.UserContext(), deadlineTestKey{}, "id"))
		return c.Next()
	})
	app.Use(deadline(stopping, d))
	var seen context.Context
	app.Get("/", func(c *fiber.Ctx) error {
		seen = c.UserContext()
		handler(seen)
		return c.SendStatus(fiber.StatusNoContent)
	})
	_, err := app.Test(httptest.NewRequest("GET", "/", nil), 10_000)
	return seen, err
}

// A request's context ends at its deadline: Done closes, Err says so,
// contexts derived from it and functions hooked on it follow, and its
// values are kept. Once the request is answered its context is ended.
func TestRequestContextEndsAtDeadline(t *testing.T) {
	var err, derivedErr error
	var value any
	ctx := serveOnce(t, context.Background(), 50*time.Millisecond, func(ctx context.Context) {
		derived, cancel := context.WithCancel(ctx)
		defer cancel()
		hooked := make(chan struct{})
		context.AfterFunc(ctx, func() { close(hooked) })
		if at, ok := ctx.Deadline(); !ok || at.IsZero() {
			t.Errorf("no deadline")
		}
		<-derived.Done()
		<-hooked
		err, derivedErr, value = ctx.Err(), derived.Err(), ctx.Value(deadlineTestKey{})
	})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(derivedErr, context.DeadlineExceeded) || value != "id" {
		t.Fatalf("err %v, derived %v, value %v", err, derivedErr, value)
	}
	if ctx.Err() == nil {
		t.Fatal("the request's context outlived its request")
	}
}

// A deadline that has passed is seen by Err without anyone having waited
// on Done, and Done is then closed.
func TestRequestContextPastDeadlineWithoutWaiting(t *testing.T) {
	var err error
	var closed bool
	serveOnce(t, context.Background(), time.Nanosecond, func(ctx context.Context) {
		for ctx.Err() == nil { // the clock passes a nanosecond
		}
		err = ctx.Err()
		select {
		case <-ctx.Done():
			closed = true
		default:
		}
	})
	if !errors.Is(err, context.DeadlineExceeded) || !closed {
		t.Fatalf("err %v, Done closed %v", err, closed)
	}
}

// Stopping ends the requests that wait on their context, those that have
// not looked yet, and every request after it, with context.Canceled.
func TestRequestContextEndsWhenStopping(t *testing.T) {
	stopping, stop := context.WithCancel(context.Background())
	waiting, looking := make(chan struct{}), make(chan struct{})
	results := make(chan [2]error, 2)
	for i, wait := range []bool{true, false} {
		go serveDeadline(stopping, time.Hour, func(ctx context.Context) {
			if wait {
				done := ctx.Done()
				close(waiting)
				<-done
			} else {
				close(looking)
				<-stopping.Done()
				<-ctx.Done()
			}
			results <- [2]error{ctx.Err(), errors.New(string(rune('a' + i)))}
		})
	}
	<-waiting
	<-looking
	stop()
	for range 2 {
		if r := <-results; !errors.Is(r[0], context.Canceled) {
			t.Fatalf("request %v: %v", r[1], r[0])
		}
	}
	var err error
	serveOnce(t, stopping, time.Hour, func(ctx context.Context) { <-ctx.Done(); err = ctx.Err() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a request after stopping: %v", err)
	}
}

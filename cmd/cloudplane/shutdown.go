package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
)

// errForced ends the process at once on a second signal.
var errForced = errors.New("interrupted again: stopped without waiting")

// stopping is what shutdown stops, besides the HTTP server.
type stopping struct {
	requests context.CancelFunc // ends every request's context
	webhooks func()             // stops the dispatcher (releasing its leases) and scheduled backups
	database func() error       // closes the database
	timeout  time.Duration      // the whole shutdown
	drain    time.Duration      // the part in-flight requests get
	log      *slog.Logger
}

// shutdown ends the server within s.timeout whatever its requests and
// database are doing: it stops accepting, lets requests in flight finish
// until the drain period ends, cancels the rest, stops the webhook
// dispatcher (which releases the deliveries it claimed) and closes the
// database. Whatever has not finished by the timeout is abandoned: the
// process exits. A second SIGTERM or interrupt ends it at once.
func shutdown(app *fiber.App, s stopping) error {
	force := make(chan os.Signal, 1)
	signal.Notify(force, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(force)
	timeout := time.NewTimer(s.timeout)
	defer timeout.Stop()

	webhooksDone := make(chan struct{})
	go func() { s.webhooks(); close(webhooksDone) }()
	drained := make(chan error, 1)
	go func() { drained <- app.ShutdownWithTimeout(s.drain) }()
	select {
	case err := <-drained:
		if err != nil {
			s.log.Warn("requests still running at the end of the drain period; cancelling them", "drain", s.drain)
		}
	case <-force:
		return errForced
	}
	s.requests()

	closed := make(chan error, 1)
	go func() { <-webhooksDone; closed <- s.database() }()
	select {
	case err := <-closed:
		if err != nil {
			s.log.Warn("closing the database", "err", err)
		}
		s.log.Info("stopped")
	case <-timeout.C:
		s.log.Warn("shutdown timeout reached; exiting without waiting for the rest", "timeout", s.timeout)
	case <-force:
		return errForced
	}
	return nil
}

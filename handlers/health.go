package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// Dependency is a service /readyz checks besides the database (Redis,
// when rate limits are shared through it).
type Dependency struct {
	Name string
	Ping func(context.Context) error
}

// readyTimeout bounds all of /readyz's checks together: a probe that
// hangs is as bad as one that fails.
const readyTimeout = 2 * time.Second

// health answers 200 when the database answers, 503 otherwise.
func health(store *models.Store) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), readyTimeout)
		defer cancel()
		if err := store.Ping(ctx); err != nil {
			return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "unavailable"})
		}
		return c.JSON(fiber.Map{"status": "ok"})
	}
}

// livez answers 200 while the process serves; it checks nothing else, so
// an outage of the database never gets a healthy process restarted.
func livez(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// readyz answers 200 when this replica can serve: the database answers and
// has every migration this binary knows, and each dependency answers.
// Otherwise 503 with a short reason; the details, which name internal
// addresses, go to the log only.
func readyz(store *models.Store, deps []Dependency, log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), readyTimeout)
		defer cancel()
		if reason, err := notReady(ctx, store, deps); reason != "" {
			log.WarnContext(c.UserContext(), "not ready", "reason", reason, "err", err)
			return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "unavailable", "reason": reason})
		}
		return c.JSON(fiber.Map{"status": "ok"})
	}
}

func notReady(ctx context.Context, store *models.Store, deps []Dependency) (string, error) {
	if err := store.Ping(ctx); err != nil {
		return "database: " + failure(err), err
	}
	pending, err := store.PendingMigrations(ctx)
	if err != nil {
		return "database: " + failure(err), err
	}
	if len(pending) > 0 {
		return fmt.Sprintf("database: %d pending migration(s); run cloudplane migrate", len(pending)), nil
	}
	for _, d := range deps {
		if err := d.Ping(ctx); err != nil {
			return d.Name + ": " + failure(err), err
		}
	}
	return "", nil
}

func failure(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", readyTimeout)
	}
	return "not answering"
}

package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// A write queued behind another connection's write lock for longer than
// the caller's deadline is the database not answering in time: 503, not
// the 409 of a lost race, and not a wait for SQLite's busy timeout.
func TestWriteBlockedPastDeadlineIsUnavailable(t *testing.T) {
	if modelstest.Backend() != "sqlite" {
		t.Skip("SQLite's write lock; PostgreSQL is covered by the unreachable-server test")
	}
	f := newFixture(t)
	release := modelstest.HoldWriteLock(t, f.dsn)
	defer release()

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := f.store.CreateFilesystem(ctx, f.alice, models.CreateFilesystemInput{Name: "late", Region: "us-east-1"})
		done <- err
	}()
	select {
	case err := <-done:
		if models.ErrorCode(err) != models.CodeProviderUnavailable {
			t.Fatalf("err = %v, want %s", err, models.CodeProviderUnavailable)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v does not carry the deadline", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("write still waiting 5s after a 300ms deadline")
	}
	release()
	if _, err := f.store.CreateFilesystem(context.Background(), f.alice, models.CreateFilesystemInput{Name: "later", Region: "us-east-1"}); err != nil {
		t.Fatalf("after the lock is released: %v", err)
	}
}

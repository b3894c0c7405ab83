package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// A write that waits for another (for SQLite's one writer, or PostgreSQL's
// account row lock) gives up when its request's context ends, with the
// context's error, which the front doors answer as unavailable, rather
// than a conflict after a busy timeout or no answer at all.
func TestWaitingWriteHonoursItsDeadline(t *testing.T) {
	store := modelstest.Open(t)
	u, _ := modelstest.Owner(t, store, "waiter@example.com")
	held, release := make(chan struct{}, 1), make(chan struct{})
	holder := make(chan error, 1)
	go func() { holder <- store.LockAccountAndWait(context.Background(), *u.AccountID, held, release) }()
	select {
	case <-held:
	case err := <-holder:
		t.Fatalf("holder: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the first write did not start within 30 s")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := store.CreateFilesystem(ctx, u.Actor(), models.CreateFilesystemInput{Name: "late", Region: "us-east-1"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting create: %v, want the context's deadline error", err)
	}
	close(release)
	if err := <-holder; err != nil {
		t.Fatalf("holder: %v", err)
	}
	// The queue moves on: the next write goes through.
	if _, err := store.CreateFilesystem(context.Background(), u.Actor(), models.CreateFilesystemInput{Name: "next", Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
}

// Many clients creating at once in one account all succeed: none fails
// with a conflict after a busy timeout, and the quota counts every create.
func TestConcurrentCreatesAllSucceed(t *testing.T) {
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	cfg.DefaultFilesystemQuota = 150
	store := modelstest.Open(t, models.WithConfig(cfg))
	u, _ := modelstest.Owner(t, store, "many@example.com")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const clients = 200
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			_, errs[i] = store.CreateFilesystem(ctx, u.Actor(), models.CreateFilesystemInput{Name: fmt.Sprintf("fs-%d", i), Region: "us-east-1"})
		})
	}
	wg.Wait()
	created, refused := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case models.ErrorCode(err) == models.CodeQuotaExceeded:
			refused++
		default:
			t.Fatalf("create failed on %s: %v", modelstest.Backend(), err)
		}
	}
	if created != 150 || refused != clients-150 {
		t.Fatalf("%d created, %d refused by the quota; want 150 and %d", created, refused, clients-150)
	}
}

// The app closes its store at shutdown and tests close it again: the
// second close neither fails nor hangs, and a closed store refuses reads
// and writes with an error instead of hanging or panicking.
func TestStoreClosesTwice(t *testing.T) {
	store := modelstest.Open(t)
	if err := store.Close(); err != nil {
		t.Fatalf("first close: %v", err)
	}
	if err := store.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := store.UserByEmail(ctx, "nobody@example.com"); err == nil || ctx.Err() != nil {
		t.Fatalf("a read on a closed store: %v (context: %v)", err, ctx.Err())
	}
	if _, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{Email: "late@example.com", Password: "a long passphrase"}); err == nil || ctx.Err() != nil {
		t.Fatalf("a write on a closed store: %v (context: %v)", err, ctx.Err())
	}
}

package models_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// openWithHashers is a store whose password work runs at most n at a time.
func openWithHashers(t *testing.T, n int) *models.Store {
	cfg := modelstest.Config()
	cfg.PasswordHashers = n
	cfg.PasswordQueueWait = time.Minute // the tests' deadlines decide
	cfg.PasswordQueueLength = 1000
	return modelstest.Open(t, models.WithConfig(cfg))
}

// holdSlots fills n password slots until the returned func is called.
func holdSlots(t *testing.T, store *models.Store, n int) (release func()) {
	t.Helper()
	entered, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = store.RunInPasswordSlot(context.Background(), func() {
				entered <- struct{}{}
				<-done
			})
		}()
	}
	for range n {
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("password slots not taken within 10 s")
		}
	}
	return func() { close(done); wg.Wait() }
}

// Many clients at once never run more password work than there are
// slots; the rest wait their turn and all finish.
func TestPasswordSlotsBoundConcurrency(t *testing.T) {
	const slots, clients = 2, 24
	store := openWithHashers(t, slots)
	release := holdSlots(t, store, slots)

	var inside, most atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- store.RunInPasswordSlot(context.Background(), func() {
				n := inside.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				inside.Add(-1)
			})
		}()
	}
	if got := inside.Load(); got != 0 {
		t.Fatalf("%d clients ran while every slot was held", got)
	}
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if m := most.Load(); m < 1 || m > slots {
		t.Fatalf("%d ran at once, want 1..%d", m, slots)
	}
}

// A sign-in that finds every slot busy gives up at its deadline with a
// rate-limited error, signs nobody in, and the same sign-in succeeds once
// a slot is free.
func TestSignInWaitsForAPasswordSlotUntilItsDeadline(t *testing.T) {
	store := openWithHashers(t, 1)
	ctx := context.Background()
	modelstest.Must[*models.User](t)(store.CreateUser(ctx, models.OperatorActor,
		models.CreateUserInput{Email: "ada@example.com", Password: password}))
	in := models.SignInInput{Email: "ada@example.com", Password: password}

	release := holdSlots(t, store, 1)
	for _, email := range []string{"ada@example.com", "nobody@example.com"} {
		in := in
		in.Email = email
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		_, token, err := store.SignIn(short, in)
		cancel()
		if !models.IsPasswordsBusy(err) || models.ErrorCode(err) != models.CodeRateLimited || token != "" {
			t.Fatalf("sign-in as %s with every slot busy: %q %v", email, token, err)
		}
	}
	// Change of password and new users wait in the same queue.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	_, err := store.CreateUser(short, models.OperatorActor, models.CreateUserInput{Email: "bob@example.com", Password: password})
	cancel()
	if !models.IsPasswordsBusy(err) {
		t.Fatalf("create user with every slot busy: %v", err)
	}
	release()
	if _, _, err := store.SignIn(ctx, in); err != nil {
		t.Fatalf("sign-in with a free slot: %v", err)
	}
}

// Many sign-ins at once through few slots all succeed, each with its own
// session, on either database.
func TestConcurrentSignInsShareThePasswordSlots(t *testing.T) {
	const clients = 16
	store := openWithHashers(t, 2)
	ctx := context.Background()
	for i := range clients {
		modelstest.Must[*models.User](t)(store.CreateUser(ctx, models.OperatorActor,
			models.CreateUserInput{Email: fmt.Sprintf("user%d@example.com", i), Password: password}))
	}
	var wg sync.WaitGroup
	tokens := make([]string, clients)
	errs := make([]error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			_, tokens[i], errs[i] = store.SignIn(ctx, models.SignInInput{
				Email: fmt.Sprintf("user%d@example.com", i), Password: password})
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, err := range errs {
		if err != nil || tokens[i] == "" || seen[tokens[i]] {
			t.Fatalf("client %d: %q %v", i, tokens[i], err)
		}
		seen[tokens[i]] = true
	}
}

// BenchmarkSetupWithWrongToken compares what a POST to a setup link
// without its token costs with one password hash at the production cost,
// which is what it cost before the token was checked first.
func BenchmarkSetupWithWrongToken(b *testing.B) {
	cfg := models.DefaultConfig()
	store := modelstest.Open(b, models.WithConfig(cfg))
	ctx := context.Background()
	if _, err := store.StartSetup(ctx); err != nil {
		b.Fatal(err)
	}
	in := models.SetupInput{Token: "wrong", Email: "eve@example.com", Password: password, PasswordConfirm: password}
	// A user already registered is refused after the hash, in the write.
	dup := models.CreateUserInput{Email: "dup@example.com", Password: password}
	if _, err := store.CreateUser(ctx, models.OperatorActor, dup); err != nil {
		b.Fatal(err)
	}
	b.Run("one hash at production cost", func(b *testing.B) {
		for b.Loop() {
			if _, err := store.CreateUser(ctx, models.OperatorActor, dup); models.ErrorCode(err) != models.CodeInvalidParameters {
				b.Fatal(err)
			}
		}
	})
	b.Run("setup with a wrong token", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := store.CompleteSetup(ctx, in); models.ErrorCode(err) != models.CodeNotFound {
				b.Fatal(err)
			}
		}
	})
}

// waitForPasswordWaiters polls until n callers wait for a password slot.
func waitForPasswordWaiters(t *testing.T, store *models.Store, n int) {
	t.Helper()
	testserver.Eventually(t, 10*time.Second, func() bool { return store.PasswordWaiters() >= n },
		fmt.Sprintf("%d callers waiting for a password slot", n))
}

// A known device waiting for a password slot is served before every
// stranger, even strangers who queued long before it; strangers are
// served in turn after it.
func TestKnownDevicesGetThePasswordSlotsFirst(t *testing.T) {
	const strangers = 24
	store := openWithHashers(t, 1)
	release := holdSlots(t, store, 1)
	var mu sync.Mutex
	var order []int // -1: the known device
	var wg sync.WaitGroup
	for i := range strangers {
		wg.Go(func() {
			if err := store.RunInPasswordSlot(context.Background(), func() {
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
			}); err != nil {
				t.Error(err)
			}
		})
		waitForPasswordWaiters(t, store, i+1) // queued in this order
	}
	wg.Go(func() {
		if err := store.RunInPasswordSlotAsKnownDevice(context.Background(), func() {
			mu.Lock()
			order = append(order, -1)
			mu.Unlock()
		}); err != nil {
			t.Error(err)
		}
	})
	waitForPasswordWaiters(t, store, strangers+1)
	release()
	wg.Wait()
	if len(order) != strangers+1 || order[0] != -1 {
		t.Fatalf("served in order %v, want the known device (-1) first", order)
	}
	for i, s := range order[1:] {
		if s != i {
			t.Fatalf("strangers served in order %v, want the order they came", order[1:])
		}
	}
}

// A known device's sign-in, queued behind many strangers' that wait for
// the hashers, is checked first and signs in; a waiter that gives up
// leaves the queue without taking a slot from anyone.
func TestKnownDeviceSignsInPastAQueueOfStrangers(t *testing.T) {
	const strangers = 24
	cfg := modelstest.Config()
	cfg.PasswordHashers = 1
	cfg.PasswordQueueWait = time.Minute
	cfg.PasswordQueueLength = 1000
	// Slow enough that the 24 strangers' checks take far longer than
	// writing the owner's session, fast enough that the few checked
	// after the owner cost little.
	cfg.PasswordCost = 10
	store := modelstest.Open(t, models.WithConfig(cfg))
	ctx := context.Background()
	device := adaOnAKnownDevice(t, store)

	release := holdSlots(t, store, 1)
	// One stranger gives up while queued.
	quitter, quit := context.WithCancel(ctx)
	quitterDone := make(chan error, 1)
	go func() {
		_, _, err := store.SignIn(quitter, models.SignInInput{Email: "ada@example.com", Password: "guess"})
		quitterDone <- err
	}()
	waitForPasswordWaiters(t, store, 1)
	strangersCtx, stopStrangers := context.WithCancel(ctx)
	defer stopStrangers()
	var wg sync.WaitGroup
	var checked atomic.Int32 // strangers whose password was checked
	for i := range strangers {
		wg.Go(func() {
			_, _, err := store.SignIn(strangersCtx, models.SignInInput{
				Email: fmt.Sprintf("nobody%d@example.com", i), Password: "guess"})
			if models.IsBadCredentials(err) {
				checked.Add(1)
			}
		})
	}
	waitForPasswordWaiters(t, store, strangers+1)
	quit()
	if err := <-quitterDone; !models.IsPasswordsBusy(err) {
		t.Fatalf("a stranger who gave up: %v", err)
	}
	owner := make(chan error, 1)
	go func() {
		_, _, err := store.SignIn(ctx, models.SignInInput{Email: "ada@example.com", Password: password, Device: device})
		owner <- err
	}()
	waitForPasswordWaiters(t, store, strangers+1)
	release()
	if err := <-owner; err != nil {
		t.Fatalf("the known device's sign-in: %v", err)
	}
	// The strangers, served after it, are let go: at most the few who
	// got a slot while the owner's session was written were checked.
	stopStrangers()
	wg.Wait()
	if n := checked.Load(); n == strangers {
		t.Fatalf("all %d strangers were checked before the known device", n)
	}
}

// Password checks other than known devices' wait in a short line: one
// that finds it full is refused busy at once, not after the queue wait,
// and signs nobody in; a known device still queues, and is served first.
func TestAFullPasswordQueueRefusesAtOnce(t *testing.T) {
	cfg := modelstest.Config()
	cfg.PasswordHashers = 1
	cfg.PasswordQueueWait = time.Hour // only a full line refuses in time
	cfg.PasswordQueueLength = 2
	store := modelstest.Open(t, models.WithConfig(cfg))
	ctx := context.Background()
	device := adaOnAKnownDevice(t, store)

	release := holdSlots(t, store, 1)
	waiting, stopWaiting := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { _ = store.RunInPasswordSlot(waiting, func() {}) })
	}
	waitForPasswordWaiters(t, store, 2)
	refused := make(chan error, 1)
	go func() {
		_, token, err := store.SignIn(ctx, models.SignInInput{Email: "ada@example.com", Password: password})
		if token != "" {
			err = fmt.Errorf("signed in with token %q (%v)", token, err)
		}
		refused <- err
	}()
	select {
	case err := <-refused:
		if !models.IsPasswordsBusy(err) {
			t.Fatalf("a sign-in finding the line full: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a sign-in finding the line full was not refused within 10 s")
	}
	owner := make(chan error, 1)
	go func() {
		_, _, err := store.SignIn(ctx, models.SignInInput{Email: "ada@example.com", Password: password, Device: device})
		owner <- err
	}()
	waitForPasswordWaiters(t, store, 3)
	// Someone signed in checking their password again (changing it) has
	// proven a past sign-in as a known device has: not refused either.
	u := modelstest.Must[*models.User](t)(store.UserByEmail(ctx, "ada@example.com"))
	signedIn := u.Actor()
	signedIn.SessionID = "a session"
	changed := make(chan error, 1)
	go func() {
		changed <- store.ChangePassword(ctx, signedIn, models.ChangePasswordInput{CurrentPassword: password,
			NewPassword: "a newer password 123", NewPasswordConfirm: "a newer password 123"})
	}()
	waitForPasswordWaiters(t, store, 4)
	release()
	if err := <-owner; err != nil {
		t.Fatalf("the known device past a full line: %v", err)
	}
	if err := <-changed; err != nil {
		t.Fatalf("a signed-in change of password past a full line: %v", err)
	}
	stopWaiting()
	wg.Wait()
}

// adaOnAKnownDevice creates ada@example.com and returns a device her
// browser signed in from before.
func adaOnAKnownDevice(t *testing.T, store *models.Store) models.Device {
	t.Helper()
	ctx := context.Background()
	modelstest.Must[*models.User](t)(store.CreateUser(ctx, models.OperatorActor,
		models.CreateUserInput{Email: "ada@example.com", Password: password}))
	cookie := modelstest.Must[string](t)(store.IssueDeviceCookie(ctx, "ada@example.com"))
	return modelstest.Must[models.Device](t)(store.RecognizeDevice(ctx, cookie, "ada@example.com"))
}

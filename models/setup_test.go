package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func TestSetupLinkWorksOnce(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	old := modelstest.Must[string](t)(store.StartSetup(ctx))
	token := modelstest.Must[string](t)(store.StartSetup(ctx))
	if token == "" || token == old {
		t.Fatalf("tokens %q then %q", old, token)
	}
	// A restart prints a new link; the one before works too, until used.
	for _, tok := range []string{old, token} {
		if err := store.CheckSetupToken(ctx, tok); err != nil {
			t.Fatalf("token %q: %v", tok, err)
		}
	}

	// Invalid input names the fields and leaves the link usable.
	_, _, err := store.CompleteSetup(ctx, models.SetupInput{Token: token, Email: "not an email", Password: "short", PasswordConfirm: "other"})
	e, _ := models.AsError(err)
	if e == nil || e.Fields["email"] == "" || e.Fields["password"] == "" || e.Fields["password_confirm"] == "" {
		t.Fatalf("invalid input: %v", err)
	}

	in := models.SetupInput{Token: token, Email: "First@Example.com", Password: password, PasswordConfirm: password, SourceIP: "192.0.2.7"}
	sess, secret, err := store.CompleteSetup(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	_, u, err := store.SessionByToken(ctx, secret)
	if err != nil || u.ID != sess.UserID || u.Email != "first@example.com" || u.Role != models.RoleOwner || u.AccountID == nil {
		t.Fatalf("signed-in user %+v, err %v", u, err)
	}
	events := modelstest.Must[[]models.AuditEvent](t)(store.LatestAuditEvents(ctx, u.Actor(), 5))
	if signedIn := modelstest.PersonalEvents(t, store, u.ID, 1); len(signedIn) != 1 || signedIn[0].Action != "signed_in" {
		t.Fatalf("personal events %+v", signedIn)
	}
	if len(events) != 1 || events[0].ResourceName != "user" || events[0].Action != "created" ||
		*events[0].ActorLRN != "lrn:cloud:user:"+u.ID {
		t.Fatalf("events %+v", events)
	}

	if _, _, err := store.CompleteSetup(ctx, in); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("second use: %v", err)
	}
	// Using one link closes every other.
	for _, tok := range []string{token, old} {
		if err := store.CheckSetupToken(ctx, tok); models.ErrorCode(err) != models.CodeNotFound {
			t.Fatalf("check of %q after use: %v", tok, err)
		}
	}
	in.Token, in.Email = old, "second@example.com"
	if _, _, err := store.CompleteSetup(ctx, in); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("the other link after use: %v", err)
	}
	if again := modelstest.Must[string](t)(store.StartSetup(ctx)); again != "" {
		t.Fatalf("setup restarted with a user present: %q", again)
	}
}

// Once any user exists, even one the operator made, no link opens setup.
func TestSetupClosesWhenAUserExists(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	token := modelstest.Must[string](t)(store.StartSetup(ctx))
	modelstest.Owner(t, store, "cli@example.com")
	if err := store.CheckSetupToken(ctx, token); models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("check: %v", err)
	}
	_, _, err := store.CompleteSetup(ctx, models.SetupInput{Token: token, Email: "late@example.com", Password: password, PasswordConfirm: password})
	if models.ErrorCode(err) != models.CodeNotFound {
		t.Fatalf("complete: %v", err)
	}
}

// Two people racing with the same link: exactly one becomes the owner.
func TestSetupRaceHasOneWinner(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	token := modelstest.Must[string](t)(store.StartSetup(ctx))
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			email := []string{"a@example.com", "b@example.com", "c@example.com", "d@example.com"}[i]
			_, _, errs[i] = store.CompleteSetup(ctx, models.SetupInput{Token: token, Email: email, Password: password, PasswordConfirm: password})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case models.ErrorCode(err) != models.CodeNotFound:
			t.Errorf("loser got %v", err)
		}
	}
	if n := modelstest.Must[int64](t)(store.UserCount(ctx)); won != 1 || n != 1 {
		t.Fatalf("%d winners, %d users", won, n)
	}
}

// Replicas starting together on one database each print a setup link:
// none fails, each link opens setup, and only one creates an owner even
// when they are all used at once.
func TestReplicasStartSetupTogether(t *testing.T) {
	ctx := context.Background()
	dsn := modelstest.DSN(t)
	stores := make([]*models.Store, 8)
	for i := range stores {
		stores[i] = modelstest.OpenAt(t, dsn)
	}
	tokens := make([]string, len(stores))
	errs := make([]error, len(stores))
	var wg sync.WaitGroup
	for i, store := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tokens[i], errs[i] = store.StartSetup(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil || tokens[i] == "" {
			t.Fatalf("replica %d: token %q, err %v", i, tokens[i], err)
		}
		if err := stores[0].CheckSetupToken(ctx, tokens[i]); err != nil {
			t.Fatalf("replica %d's link: %v", i, err)
		}
	}

	// Each link used at once, through its own replica, by a different
	// person: one first owner.
	won := make([]bool, len(stores))
	for i, store := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = store.CompleteSetup(ctx, models.SetupInput{Token: tokens[i],
				Email: fmt.Sprintf("owner%d@example.com", i), Password: password, PasswordConfirm: password})
			won[i] = errs[i] == nil
		}()
	}
	wg.Wait()
	winners := 0
	for i, err := range errs {
		if won[i] {
			winners++
		} else if models.ErrorCode(err) != models.CodeNotFound {
			t.Errorf("replica %d: %v, want not found", i, err)
		}
	}
	if n := modelstest.Must[int64](t)(stores[0].UserCount(ctx)); winners != 1 || n != 1 {
		t.Fatalf("%d winners, %d users", winners, n)
	}
}

// Only the newest MaxSetupLinks links work: restarts do not pile up
// links without end.
func TestOnlyTheNewestSetupLinksWork(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	tokens := make([]string, models.MaxSetupLinks+2)
	for i := range tokens {
		tokens[i] = modelstest.Must[string](t)(store.StartSetup(ctx))
	}
	for i, tok := range tokens {
		err := store.CheckSetupToken(ctx, tok)
		if i < 2 && models.ErrorCode(err) != models.CodeNotFound {
			t.Errorf("link %d of %d opens setup: %v", i+1, len(tokens), err)
		} else if i >= 2 && err != nil {
			t.Errorf("link %d of %d: %v", i+1, len(tokens), err)
		}
	}
}

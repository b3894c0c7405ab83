package models_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// A one-time value is taken once: of many requests taking it at once,
// exactly one gets it; another session's value is untouched; an oversized
// one is refused.
func TestSessionOnceIsTakenOnce(t *testing.T) {
	ctx := context.Background()
	store := modelstest.Open(t)
	modelstest.Owner(t, store, "ada@example.com")
	sess, _ := signIn(t, store, "ada@example.com")
	other, _ := signIn(t, store, "ada@example.com")
	if err := store.SetSessionOnce(ctx, other.ID, "theirs"); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		if err := store.SetSessionOnce(ctx, sess.ID, "sealed value"); err != nil {
			t.Fatal(err)
		}
		const takers = 24
		var wg sync.WaitGroup
		got := make(chan string, takers)
		for range takers {
			wg.Go(func() {
				v, err := store.TakeSessionOnce(ctx, sess.ID)
				if err != nil {
					t.Error(err)
				}
				got <- v
			})
		}
		wg.Wait()
		close(got)
		var taken []string
		for v := range got {
			if v != "" {
				taken = append(taken, v)
			}
		}
		if len(taken) != 1 || taken[0] != "sealed value" {
			t.Fatalf("round %d: %d takers got the value: %q", round, len(taken), taken)
		}
	}
	if v, err := store.TakeSessionOnce(ctx, other.ID); err != nil || v != "theirs" {
		t.Fatalf("the other session's value: %q, %v", v, err)
	}
	if v, err := store.TakeSessionOnce(ctx, "no-such-session"); err != nil || v != "" {
		t.Fatalf("a session gone: %q, %v", v, err)
	}
	err := store.SetSessionOnce(ctx, sess.ID, strings.Repeat("x", models.MaxSessionOnce+1))
	if e, ok := models.AsError(err); !ok || e.Code != models.CodeInvalidParameters {
		t.Fatalf("oversized value: %v", err)
	}
}

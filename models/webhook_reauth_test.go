package models_test

import (
	"context"
	"testing"
	"time"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// Every webhook change that shows a token or secret, or moves where the
// token goes, needs a recent authentication from a dashboard session;
// the owner's own actor without a session (an API key) is not asked.
func TestWebhookSecretsNeedARecentAuthentication(t *testing.T) {
	ctx := context.Background()
	clock := modelstest.NewClock()
	store := modelstest.Open(t, models.WithClock(clock.Now))
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	ada := signInAs(t, store, "ada@example.com", "Firefox", models.Device{})
	ep, _, err := store.CreateWebhookEndpoint(ctx, ada, models.SetWebhookInput{URL: "https://hooks.example.com/"})
	if err != nil {
		t.Fatalf("create in a new session: %v", err)
	}
	clock.Advance(models.ReauthWindow + time.Second)
	checks := map[string]func(models.Actor) error{
		"create": func(a models.Actor) error {
			_, _, err := store.CreateWebhookEndpoint(ctx, a, models.SetWebhookInput{URL: "https://other.example.com/"})
			return err
		},
		"update": func(a models.Actor) error {
			_, _, err := store.SetWebhook(ctx, a, models.SetWebhookInput{EndpointID: ep.ID, URL: "https://attacker.example.com/"})
			return err
		},
		"rotate token": func(a models.Actor) error {
			_, err := store.RotateWebhookToken(ctx, a, ep.ID)
			return err
		},
		"rotate secret": func(a models.Actor) error {
			_, err := store.RotateWebhookSecret(ctx, a, ep.ID)
			return err
		},
	}
	for name, check := range checks {
		if err := check(ada); err != models.ErrReauthRequired {
			t.Errorf("%s after the window: %v, want ErrReauthRequired", name, err)
		}
	}
	if got, err := store.WebhookEndpoint(ctx, u.Actor(), ep.ID); err != nil || got.URL != "https://hooks.example.com/" {
		t.Fatalf("endpoint changed by a refused update: %+v, %v", got, err)
	}
	if _, err := store.SetWebhookEnabled(ctx, ada, ep.ID, false); err != nil {
		t.Fatalf("switching off needs no reauthentication: %v", err)
	}
	for name, check := range checks {
		if err := check(u.Actor()); err != nil {
			t.Errorf("%s without a session: %v", name, err)
		}
	}
	if err := store.ConfirmIdentity(ctx, ada, models.IdentityProof{Password: password}); err != nil {
		t.Fatal(err)
	}
	for name, check := range checks {
		if err := check(ada); err != nil {
			t.Errorf("%s after confirming: %v", name, err)
		}
	}
}

package api_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"

	"cloudplane/models"
)

func TestAuthorizationForms(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		header string
		status int
	}{
		{"bearer", "Bearer " + e.key, http.StatusOK},
		{"bearer lower-case scheme", "bearer " + e.key, http.StatusOK},
		{"basic encoded with colon", "Basic " + base64.StdEncoding.EncodeToString([]byte(e.key+":")), http.StatusOK},
		{"basic unencoded", "Basic " + e.key, http.StatusOK},
		{"no header", "", http.StatusUnauthorized},
		{"unknown key", "Bearer cpk_00000000_" + models.NewID() + models.NewID(), http.StatusUnauthorized},
		{"not our key format", "Bearer secret_abc", http.StatusUnauthorized},
		{"wrong scheme", "Token " + e.key, http.StatusUnauthorized},
		{"basic with a password instead of a key", "Basic " + base64.StdEncoding.EncodeToString([]byte("user:pass")), http.StatusUnauthorized},
		{"scheme only", "Bearer", http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/api/v1/regions", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			r := e.send(req)
			if tc.status == http.StatusOK {
				r.expect(http.StatusOK)
				return
			}
			r.expectError(tc.status, models.CodeInvalidAPIKey)
		})
	}
}

func TestRevokedKeyStopsWorkingAtOnce(t *testing.T) {
	e := newEnv(t)
	e.do(http.MethodGet, "/api/v1/regions", nil).expect(http.StatusOK)
	keys, err := e.store.APIKeys(context.Background(), e.owner.Actor())
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v, err %v", keys, err)
	}
	if _, err := e.store.RevokeAPIKey(context.Background(), e.owner.Actor(), keys[0].Prefix); err != nil {
		t.Fatal(err)
	}
	e.do(http.MethodGet, "/api/v1/regions", nil).expectError(http.StatusUnauthorized, models.CodeInvalidAPIKey)
}

func TestInactiveAccountIsForbidden(t *testing.T) {
	e := newEnv(t)
	inactive := models.AccountInactive
	if _, err := e.store.UpdateAccount(context.Background(), models.OperatorActor, e.owner.Email,
		models.UpdateAccountInput{Status: &inactive}); err != nil {
		t.Fatal(err)
	}
	e.do(http.MethodGet, "/api/v1/regions", nil).expectError(http.StatusForbidden, models.CodeAccountInactive)
}

func TestAnotherOwnersKeyIsTheirs(t *testing.T) {
	e := newEnv(t)
	// A second account's key authenticates as that account, not the first.
	other, err := e.store.CreateUser(context.Background(), models.OperatorActor,
		models.CreateUserInput{Email: "other@example.com", Password: "another long password"})
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := e.store.CreateAPIKey(context.Background(), other.Actor(), models.CreateAPIKeyInput{})
	if err != nil {
		t.Fatal(err)
	}
	actor, err := e.store.Authenticate(context.Background(), secret)
	if err != nil || actor.AccountID != *other.AccountID || actor.UserID != other.ID {
		t.Fatalf("actor %+v, err %v", actor, err)
	}
}

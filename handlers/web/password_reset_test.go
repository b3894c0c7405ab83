package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"cloudplane/models"
)

func TestPasswordResetLink(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	old := e.signedIn("ada@example.com") // a session the reset must end
	token, err := e.store.StartPasswordReset(context.Background(), models.OperatorActor, "ada@example.com")
	if err != nil || token == "" {
		t.Fatalf("start reset: %q %v", token, err)
	}
	const newPassword = "a new long passphrase"
	b := e.browser()
	b.get("/reset-password/not-the-token").expect(http.StatusNotFound).contains("invalid, expired or already used")
	b.get("/reset-password/"+token).expect(http.StatusOK).contains("Choose a new password", "ada@example.com")

	b.post("/reset-password/"+token, url.Values{"password": {newPassword}, "password_confirm": {"other"}}).
		expect(http.StatusUnprocessableEntity).
		fieldError("password_confirm", "Confirm password does not match the password.")
	b.post("/reset-password/"+token, url.Values{"password": {newPassword}, "password_confirm": {newPassword}}).
		redirectsTo("/")
	b.get("/").expect(http.StatusOK).contains("Your password has been changed.")

	old.get("/").redirectsTo("/sign-in?next=%2F&notice=expired")
	e.browser().signIn("ada@example.com", password).expect(http.StatusUnprocessableEntity)
	e.browser().signIn("ada@example.com", newPassword).expect(http.StatusSeeOther)
	e.browser().get("/reset-password/" + token).expect(http.StatusNotFound) // it works once
}

func TestPasswordResetLinkExpires(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	first, err := e.store.StartPasswordReset(context.Background(), models.OperatorActor, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.store.StartPasswordReset(context.Background(), models.OperatorActor, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	e.browser().get("/reset-password/" + first).expect(http.StatusNotFound) // replaced by the second
	e.browser().get("/reset-password/" + second).expect(http.StatusOK)
	e.clock.Advance(models.PasswordResetTTL)
	e.browser().get("/reset-password/" + second).expect(http.StatusNotFound)
}

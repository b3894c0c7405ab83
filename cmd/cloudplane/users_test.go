package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

func TestUsersResetPasswordAndList(t *testing.T) {
	dsn := migrated(t, modelstest.DSN(t))
	owner(t, dsn, "ada@example.com")
	mustCLI(t, "users", "create", "--database", dsn, "--email", "sam@example.com",
		"--password", "correct horse battery", "--role", "support")

	list := mustCLI(t, "users", "list", "--database", dsn)
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "EMAIL") ||
		!strings.Contains(lines[1], "ada@example.com") || !strings.Contains(lines[1], "owner") ||
		!strings.Contains(lines[2], "sam@example.com") || !strings.Contains(lines[2], "support") {
		t.Fatalf("users list:\n%s", list)
	}

	link := lastLine(mustCLI(t, "users", "reset-password", "--database", dsn, "--email", "ada@example.com",
		"--base-url", "https://cloud.example.com/"))
	token, ok := strings.CutPrefix(link, "https://cloud.example.com/reset-password/")
	if !ok {
		t.Fatalf("reset link %q", link)
	}
	store := openDB(t, dsn)
	ctx := context.Background()
	if u, err := store.CheckPasswordResetToken(ctx, token); err != nil || u.Email != "ada@example.com" {
		t.Fatalf("printed link: %v %v", u, err)
	}

	mustCLI(t, "users", "reset-password", "--database", dsn, "--email", "sam@example.com", "--password", "another long passphrase")
	if _, _, err := store.SignIn(ctx, models.SignInInput{Email: "sam@example.com", Password: "correct horse battery"}); !models.IsBadCredentials(err) {
		t.Fatalf("old password after --password: %v", err)
	}
	if _, _, err := store.SignIn(ctx, models.SignInInput{Email: "sam@example.com", Password: "another long passphrase"}); err != nil {
		t.Fatalf("new password: %v", err)
	}

	// Creating an existing user again points at what the operator wants.
	if _, errOut, code := cli(t, "users", "create", "--database", dsn, "--email", "ada@example.com",
		"--password", "correct horse battery"); code == 0 || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, "users reset-password --email ada@example.com") {
		t.Fatalf("users create of an existing email: exit %d, stderr %q", code, errOut)
	}
	for _, args := range [][]string{
		{"users", "reset-password", "--database", dsn, "--email", "nobody@example.com"},
		{"users", "reset-password", "--database", dsn, "--email", "sam@example.com", "--password", "short"},
	} {
		if _, errOut, code := cli(t, args...); code == 0 || strings.Count(errOut, "\n") != 1 {
			t.Fatalf("%v: exit %d, stderr %q; want one line and a failure", args, code, errOut)
		}
	}
}

// The operator's reset-2fa removes a user's second factor and passkeys,
// audited: the password alone signs them in again.
func TestUsersReset2FA(t *testing.T) {
	dsn := migrated(t, modelstest.DSN(t))
	owner(t, dsn, "ada@example.com")
	store := openDB(t, dsn)
	ctx := context.Background()
	u, err := store.UserByEmail(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	e, err := store.StartSecondFactorEnrolment(ctx, u.Actor())
	if err != nil {
		t.Fatal(err)
	}
	code, err := totp.GenerateCode(e.Secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.ConfirmSecondFactor(ctx, u.Actor(), code); err != nil {
		t.Fatal(err)
	}
	rp := models.RelyingParty{ID: "console.example.com", Origin: "https://console.example.com"}
	options, token, err := store.BeginPasskeyRegistration(ctx, u.Actor(), rp)
	if err != nil {
		t.Fatal(err)
	}
	auth := modelstest.NewAuthenticator(t, rp.Origin)
	if _, err := store.AddPasskey(ctx, u.Actor(), rp, models.AddPasskeyInput{Name: "Laptop", Token: token,
		Credential: auth.Register(t, options)}); err != nil {
		t.Fatal(err)
	}
	in := models.SignInInput{Email: "ada@example.com", Password: "correct horse battery"}
	if _, _, err := store.SignIn(ctx, in); err == nil {
		t.Fatal("a password alone signed in a user with a second factor")
	}
	out := mustCLI(t, "users", "reset-2fa", "--database", dsn, "--email", "ada@example.com")
	if !strings.Contains(out, "ada@example.com") {
		t.Fatalf("reset-2fa printed %q", out)
	}
	if _, _, err := store.SignIn(ctx, in); err != nil {
		t.Fatalf("sign-in after reset-2fa: %v", err)
	}
	if has, err := store.UserHasPasskey(ctx, u.ID); has || err != nil {
		t.Fatalf("a passkey left after reset-2fa: %v %v", has, err)
	}
	ev := modelstest.PersonalEvents(t, store, u.ID, 2)[1]
	if ev.Action != "second_factor_reset" {
		t.Fatalf("reset event %+v", ev)
	}
	if _, errOut, code := cli(t, "users", "reset-2fa", "--database", dsn, "--email", "nobody@example.com"); code == 0 ||
		strings.Count(errOut, "\n") != 1 {
		t.Fatalf("unknown email: exit %d, stderr %q", code, errOut)
	}
}

package models_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// totpAt is the code an authenticator app shows at t.
func totpAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// enrol turns TOTP on for actor with the code of now, and returns the
// secret and the recovery codes; the clock moves on a step, so the next
// code is a new one.
func enrol(t *testing.T, store *models.Store, clock *modelstest.Clock, actor models.Actor) (string, []string) {
	t.Helper()
	ctx := context.Background()
	e := modelstest.Must[*models.TOTPEnrolment](t)(store.StartSecondFactorEnrolment(ctx, actor))
	codes := modelstest.Must[[]string](t)(store.ConfirmSecondFactor(ctx, actor, totpAt(t, e.Secret, clock.Now())))
	if len(codes) != models.RecoveryCodeCount {
		t.Fatalf("%d recovery codes", len(codes))
	}
	clock.Advance(30 * time.Second)
	return e.Secret, codes
}

// halfSignIn signs in with the password and returns the pending sign-in
// it must be.
func halfSignIn(t *testing.T, store *models.Store, email, reason string) string {
	t.Helper()
	_, _, err := store.SignIn(context.Background(), models.SignInInput{Email: email, Password: password, SourceIP: "192.0.2.1",
		Next: "/api-keys"})
	step, ok := models.AsSecondStep(err)
	if !ok || step.Reason != reason {
		t.Fatalf("sign-in of %s: %v, want a second step %q", email, err, reason)
	}
	return step.Token
}

func twoFactorStore(t *testing.T, change ...func(*models.Config)) (*models.Store, *modelstest.Clock) {
	clock := modelstest.NewClock()
	cfg := modelstest.Config()
	for _, c := range change {
		c(&cfg)
	}
	return modelstest.Open(t, models.WithClock(clock.Now), models.WithConfig(cfg)), clock
}

// A password alone no longer signs in a user with a second factor: the
// pending sign-in is no session, and a TOTP code finishes it as
// "password+totp", where the browser first asked to go.
func TestSignInAsksForTheSecondFactor(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, _ := enrol(t, store, clock, u.Actor())

	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	if _, _, err := store.SessionByToken(ctx, pending); err != models.ErrNoSession {
		t.Fatalf("the pending token as a session: %v", err)
	}
	done, err := store.CompletePendingSignIn(ctx, pending, totpAt(t, secret, clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if done.Session.AuthMethod != "password+totp" || done.Next != "/api-keys" {
		t.Fatalf("session method %q, next %q", done.Session.AuthMethod, done.Next)
	}
	if _, _, err := store.SessionByToken(ctx, done.Token); err != nil {
		t.Fatal(err)
	}
	// The pending sign-in is used up.
	if _, err := store.CompletePendingSignIn(ctx, pending, totpAt(t, secret, clock.Now())); !models.IsPendingInvalid(err) {
		t.Fatalf("pending sign-in used twice: %v", err)
	}
}

// Each code works once: the same code again, and a code of an earlier
// step still inside the window, are refused.
func TestReplayedTOTPCodeIsRefused(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, _ := enrol(t, store, clock, u.Actor())

	now := totpAt(t, secret, clock.Now())
	p1 := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	if _, err := store.CompletePendingSignIn(ctx, p1, now); err != nil {
		t.Fatal(err)
	}
	p2 := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	if _, err := store.CompletePendingSignIn(ctx, p2, now); !models.IsBadSecondFactorCode(err) {
		t.Fatalf("same code twice: %v", err)
	}
	// A later step's code (the clock a little ahead), then the earlier one.
	clock.Advance(5 * time.Second)
	later := totpAt(t, secret, clock.Now().Add(30*time.Second))
	if _, err := store.VerifySecondFactor(ctx, u.Actor(), later); err != nil {
		t.Fatalf("next step's code: %v", err)
	}
	if _, err := store.VerifySecondFactor(ctx, u.Actor(), totpAt(t, secret, clock.Now())); !models.IsBadSecondFactorCode(err) {
		t.Fatalf("an earlier step's code after a later one: %v", err)
	}
}

// Codes one step either side of now are accepted, two steps away refused.
func TestTOTPWindowIsOneStep(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		offset time.Duration
		ok     bool
	}{
		{"now", 0, true}, {"one step behind", -30 * time.Second, true}, {"one step ahead", 30 * time.Second, true},
		{"two steps behind", -60 * time.Second, false}, {"two steps ahead", 60 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, clock := twoFactorStore(t)
			u, _ := modelstest.Owner(t, store, "ada@example.com")
			secret, _ := enrol(t, store, clock, u.Actor())
			clock.Advance(60 * time.Second) // the enrolment's step is out of every window
			_, err := store.VerifySecondFactor(ctx, u.Actor(), totpAt(t, secret, clock.Now().Add(tc.offset)))
			if tc.ok && err != nil || !tc.ok && !models.IsBadSecondFactorCode(err) {
				t.Fatalf("code at %v: %v", tc.offset, err)
			}
		})
	}
}

// A pending sign-in takes MaxPendingAttempts codes, then not even the
// right one: the password must be typed again.
func TestPendingSignInCapsAttempts(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, _ := enrol(t, store, clock, u.Actor())
	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	right := totpAt(t, secret, clock.Now())
	wrong := "000000"
	if wrong == right {
		wrong = "111111"
	}
	for i := 0; i < models.MaxPendingAttempts; i++ {
		if _, err := store.CompletePendingSignIn(ctx, pending, wrong); !models.IsBadSecondFactorCode(err) {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	if _, err := store.CompletePendingSignIn(ctx, pending, right); !models.IsPendingInvalid(err) {
		t.Fatalf("right code after %d wrong ones: %v", models.MaxPendingAttempts, err)
	}
	// The last allowed attempt can still succeed.
	p2 := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	for i := 0; i < models.MaxPendingAttempts-1; i++ {
		_, _ = store.CompletePendingSignIn(ctx, p2, wrong)
	}
	if _, err := store.CompletePendingSignIn(ctx, p2, right); err != nil {
		t.Fatalf("right code at the last attempt: %v", err)
	}
}

// Many wrong codes sent at once are counted one by one: no more than
// MaxPendingAttempts of them are ever checked, on either database (a
// count read and written back would let concurrent attempts through).
func TestPendingSignInCapHoldsUnderConcurrentAttempts(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, _ := enrol(t, store, clock, u.Actor())
	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	wrong := "000000"
	if wrong == totpAt(t, secret, clock.Now()) {
		wrong = "111111"
	}
	const attempts = 24
	var checked atomic.Int32
	var wg sync.WaitGroup
	for range attempts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := store.CompletePendingSignIn(ctx, pending, wrong)
			switch {
			case models.IsBadSecondFactorCode(err):
				checked.Add(1)
			case models.IsPendingInvalid(err):
			default:
				t.Errorf("attempt: %v", err)
			}
		}()
	}
	wg.Wait()
	if n := checked.Load(); n > models.MaxPendingAttempts {
		t.Fatalf("%d of %d concurrent codes were checked, cap is %d", n, attempts, models.MaxPendingAttempts)
	}
}

// A pending sign-in expires after five minutes.
func TestPendingSignInExpires(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, _ := enrol(t, store, clock, u.Actor())
	pending := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	clock.Advance(models.PendingSignInTTL)
	if _, err := store.PendingSignInByToken(ctx, pending); !models.IsPendingInvalid(err) {
		t.Fatalf("pending after 5 min: %v", err)
	}
	if _, err := store.CompletePendingSignIn(ctx, pending, totpAt(t, secret, clock.Now())); !models.IsPendingInvalid(err) {
		t.Fatalf("completed after 5 min: %v", err)
	}
}

// A password reset sets the password but does not sign in a user with a
// second factor: the code is still asked for.
func TestPasswordResetDoesNotBypassTheSecondFactor(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, _ := enrol(t, store, clock, u.Actor())
	link := modelstest.Must[string](t)(store.StartPasswordReset(ctx, models.OperatorActor, "ada@example.com"))
	sess, token, err := store.CompletePasswordReset(ctx, models.PasswordResetInput{Token: link,
		Password: "a brand new passphrase", PasswordConfirm: "a brand new passphrase"})
	step, ok := models.AsSecondStep(err)
	if !ok || sess != nil || token != "" || step.Reason != models.PendingSecondFactor {
		t.Fatalf("reset: %v, %v", sess, err)
	}
	if _, err := store.CheckPasswordResetToken(ctx, link); err == nil {
		t.Fatal("the link still works")
	}
	done, err := store.CompletePendingSignIn(ctx, step.Token, totpAt(t, secret, clock.Now()))
	if err != nil || done.Session.AuthMethod != "link+totp" {
		t.Fatalf("second step after reset: %v", err)
	}
}

// A recovery code works once, and signs in as "password+recovery".
func TestRecoveryCodeWorksOnce(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	_, codes := enrol(t, store, clock, u.Actor())
	p1 := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	done, err := store.CompletePendingSignIn(ctx, p1, " "+codes[3]+" ")
	if err != nil || done.Session.AuthMethod != "password+recovery" {
		t.Fatalf("recovery code: %v", err)
	}
	p2 := halfSignIn(t, store, "ada@example.com", models.PendingSecondFactor)
	if _, err := store.CompletePendingSignIn(ctx, p2, codes[3]); !models.IsBadSecondFactorCode(err) {
		t.Fatalf("recovery code twice: %v", err)
	}
	used := 0
	for _, ev := range modelstest.PersonalEvents(t, store, u.ID, 10) {
		if ev.Action == "recovery_code_used" {
			used++
		}
	}
	if used != 1 {
		t.Fatalf("%d recovery_code_used events, want 1", used)
	}
	st := modelstest.Must[*models.SecondFactorState](t)(store.SecondFactorStatus(ctx, u.Actor()))
	if st.RecoveryCodesLeft != models.RecoveryCodeCount-1 {
		t.Fatalf("%d codes left", st.RecoveryCodesLeft)
	}
	// New codes replace the old ones.
	fresh := modelstest.Must[[]string](t)(store.RegenerateRecoveryCodes(ctx, u.Actor(), codes[4]))
	if _, err := store.VerifySecondFactor(ctx, u.Actor(), codes[5]); !models.IsBadSecondFactorCode(err) {
		t.Fatalf("an old code after regenerating: %v", err)
	}
	if _, err := store.VerifySecondFactor(ctx, u.Actor(), fresh[0]); err != nil {
		t.Fatal(err)
	}
}

// An owner requiring a second factor leads a member without one to enrol
// at their next sign-in; the session starts only once a code confirms it.
func TestRequiredSecondFactorLeadsMemberToEnrol(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	member, _ := modelstest.Member(t, store, owner.Actor(), "bob@example.com", models.RoleMember)
	if err := store.SetRequireSecondFactor(ctx, member, true); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("a member setting the rule: %v", err)
	}
	if err := store.SetRequireSecondFactor(ctx, owner.Actor(), true); err != nil {
		t.Fatal(err)
	}
	if n := modelstest.AuditCount(t, store, owner.Actor().AccountID, "account"); n == 0 {
		t.Fatal("the rule is not audited")
	}
	pending := halfSignIn(t, store, "bob@example.com", models.PendingEnrol)
	if _, err := store.CompletePendingSignIn(ctx, pending, "123456"); !models.IsPendingInvalid(err) {
		t.Fatalf("an enrol step finished as a code step: %v", err)
	}
	e := modelstest.Must[*models.TOTPEnrolment](t)(store.StartPendingEnrolment(ctx, pending))
	again := modelstest.Must[*models.TOTPEnrolment](t)(store.StartPendingEnrolment(ctx, pending))
	if again.Secret != e.Secret {
		t.Fatal("reloading the enrol page changed the secret")
	}
	done, err := store.CompletePendingEnrolment(ctx, pending, totpAt(t, e.Secret, clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if len(done.RecoveryCodes) != models.RecoveryCodeCount || done.Session.AuthMethod != "password+totp" {
		t.Fatalf("enrolled: %d codes, method %q", len(done.RecoveryCodes), done.Session.AuthMethod)
	}
	// Required, so it cannot be turned off; and the next sign-in asks for a code.
	clock.Advance(30 * time.Second)
	if err := store.DisableSecondFactor(ctx, member, totpAt(t, e.Secret, clock.Now())); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("turning a required factor off: %v", err)
	}
	halfSignIn(t, store, "bob@example.com", models.PendingSecondFactor)
	// The owner, also without one, is led to enrol too.
	halfSignIn(t, store, "ada@example.com", models.PendingEnrol)
}

// A secret started in a session and never confirmed (perhaps by someone
// else at the user's browser) is not the one the enrol step shows later:
// that step makes its own.
func TestEnrolStepNeverReusesAnEarlierSecret(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	member, _ := modelstest.Member(t, store, owner.Actor(), "bob@example.com", models.RoleMember)
	planted := modelstest.Must[*models.TOTPEnrolment](t)(store.StartSecondFactorEnrolment(ctx, member))
	clock.Advance(time.Minute)
	if err := store.SetRequireSecondFactor(ctx, owner.Actor(), true); err != nil {
		t.Fatal(err)
	}
	pending := halfSignIn(t, store, "bob@example.com", models.PendingEnrol)
	e := modelstest.Must[*models.TOTPEnrolment](t)(store.StartPendingEnrolment(ctx, pending))
	if e.Secret == planted.Secret {
		t.Fatal("the enrol step showed the secret started earlier in a session")
	}
	if _, err := store.CompletePendingEnrolment(ctx, pending, totpAt(t, planted.Secret, clock.Now())); !models.IsBadSecondFactorCode(err) {
		t.Fatalf("a code of the earlier secret: %v", err)
	}
}

// Support staff must enrol when the store's rule is on, and sign in with
// a password alone when it is off.
func TestSupportStaffMustEnrolWhenRequired(t *testing.T) {
	ctx := context.Background()
	for _, on := range []bool{true, false} {
		store, _ := twoFactorStore(t, func(c *models.Config) { c.RequireSecondFactorForSupport = on })
		if _, err := store.CreateUser(ctx, models.OperatorActor, models.CreateUserInput{Email: "sam@example.com",
			Password: password, Role: models.RoleSupport}); err != nil {
			t.Fatal(err)
		}
		if on {
			halfSignIn(t, store, "sam@example.com", models.PendingEnrol)
		} else {
			signIn(t, store, "sam@example.com")
		}
	}
	if !models.DefaultConfig().RequireSecondFactorForSupport {
		t.Fatal("support staff's rule is off by default")
	}
}

// The operator's reset removes the factor and the recovery codes: the
// password alone signs in again. Turning it off needs a code.
func TestResetAndDisableSecondFactor(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	u, _ := modelstest.Owner(t, store, "ada@example.com")
	secret, codes := enrol(t, store, clock, u.Actor())
	if err := store.ResetSecondFactor(ctx, u.Actor(), "ada@example.com"); models.ErrorCode(err) != models.CodeForbidden {
		t.Fatalf("a user resetting: %v", err)
	}
	if err := store.ResetSecondFactor(ctx, models.OperatorActor, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	ev := modelstest.PersonalEvents(t, store, u.ID, 1)[0]
	if ev.Action != "second_factor_reset" || ev.ResourceName != "user" {
		t.Fatalf("reset event %+v", ev)
	}
	signIn(t, store, "ada@example.com")
	if _, err := store.VerifySecondFactor(ctx, u.Actor(), codes[0]); !models.IsBadSecondFactorCode(err) {
		t.Fatalf("a recovery code after the reset: %v", err)
	}

	secret, _ = enrol(t, store, clock, u.Actor())
	if err := store.DisableSecondFactor(ctx, u.Actor(), "000000"); !models.IsBadSecondFactorCode(err) {
		t.Fatalf("turned off with a wrong code: %v", err)
	}
	if err := store.DisableSecondFactor(ctx, u.Actor(), totpAt(t, secret, clock.Now())); err != nil {
		t.Fatal(err)
	}
	if ev := modelstest.PersonalEvents(t, store, u.ID, 1)[0]; ev.Action != "second_factor_disabled" {
		t.Fatalf("turning it off recorded %s/%s", ev.ResourceName, ev.Action)
	}
	signIn(t, store, "ada@example.com")
}

// Joining through an invitation signs in as any link does: into an
// account that requires a second factor, the new member enrols first.
func TestInvitationIntoA2FAAccountLeadsToEnrol(t *testing.T) {
	ctx := context.Background()
	store, clock := twoFactorStore(t)
	owner, _ := modelstest.Owner(t, store, "ada@example.com")
	if err := store.SetRequireSecondFactor(ctx, owner.Actor(), true); err != nil {
		t.Fatal(err)
	}
	inv := invite(t, store, owner.Actor(), "new@example.com", models.RoleMember)
	_, _, err := store.AcceptInvitationAsNewUser(ctx, models.InvitationSignupInput{Token: inv.Token,
		Password: "a long enough password", PasswordConfirm: "a long enough password"})
	step, ok := models.AsSecondStep(err)
	if !ok || step.Reason != models.PendingEnrol {
		t.Fatalf("accepting into a 2FA account: %v", err)
	}
	e := modelstest.Must[*models.TOTPEnrolment](t)(store.StartPendingEnrolment(ctx, step.Token))
	done, err := store.CompletePendingEnrolment(ctx, step.Token, totpAt(t, e.Secret, clock.Now()))
	if err != nil || done.Session.AuthMethod != "link+totp" {
		t.Fatalf("enrolled after the invitation: %v", err)
	}
	if _, err := store.CheckInvitation(ctx, inv.Token); err == nil {
		t.Fatal("the invitation still opens")
	}
}

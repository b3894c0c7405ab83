package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"cloudplane/models"
)

// Codes guessed at the second step of signing in and on "Confirm it's
// you" share one budget per user: a fresh session does not buy a new
// allowance of guesses at the same six digits.
func TestCodeGuessesShareTheUserBudget(t *testing.T) {
	e := newEnv(t, deviceLimits())
	ada := e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	secret, _ := e.withTOTP(ada)
	e.stale()
	guesser := e.browser().from("203.0.113.9")
	guesser.signIn("ada@example.com", password).redirectsTo("/sign-in/second-factor")
	refused := false
	for i := range models.MaxPendingAttempts {
		res := guesser.post("/sign-in/second-factor", url.Values{"code": {"00000" + string(rune('0'+i))}})
		if res.Status == http.StatusTooManyRequests {
			refused = true
			break
		}
	}
	if !refused {
		t.Fatal("the second step's guesses were never throttled")
	}
	b.get("/confirm-identity?next=/").expect(http.StatusOK)
	b.post("/confirm-identity/code", url.Values{"next": {"/"}, "code": {codeAt(t, secret, e.clock.Now())}}).
		expect(http.StatusTooManyRequests)
	e.clock.Advance(2 * time.Minute)
	b.post("/confirm-identity/code", url.Values{"next": {"/"}, "code": {codeAt(t, secret, e.clock.Now())}}).
		redirectsTo("/")
}

// Turning TOTP on from the profile signs out the user's other sessions
// and says so; this one stays.
func TestTOTPOnSignsOutOtherSessions(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	other := e.signedIn("ada@example.com")
	b.post("/account/two-factor/start", nil).redirectsTo("/account#two-factor")
	st, err := e.store.SecondFactorStatus(t.Context(), sessionActor(t, e, b))
	if err != nil || st.Pending == nil {
		t.Fatalf("no enrolment: %+v %v", st, err)
	}
	b.post("/account/two-factor/confirm", url.Values{"code": {codeAt(t, st.Pending.Secret, e.clock.Now())}}).
		redirectsTo("/account?codes=1#two-factor")
	b.get("/account?codes=1").expect(http.StatusOK).contains("Your other sessions were signed out.")
	other.get("/account").redirectsTo("/sign-in?next=" + url.QueryEscape("/account") + "&notice=expired")
}

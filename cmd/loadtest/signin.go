package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The sign-in scenario (-scenario signin) puts the two attacks of issue 18
// on the dashboard's sign-in of the real binary, from rotating source
// addresses (127.0.0.0/8 is all loopback, so a client may bind to any of
// them; the server sees each as a client address of its own):
//
//  1. lockout: strangers guess the owner's password once a second from 50
//     addresses while the owner, in the browser she signed in with
//     before, signs in once a second (from another network each time,
//     so that only her account's limit is in play): how many of her 15
//     attempts are refused?
//  2. hashers: 24 threads post wrong passwords for unknown emails from the
//     50 addresses while the owner's browser signs in once a second: how
//     long does she wait, and what is the answer? A browser that never
//     signed in (a stranger with the right password) is measured beside.
//
// It fails when the owner's browser is refused or not signed in.

const (
	signInOwner     = "owner@example.com"
	signInNewcomer  = "newcomer@example.com"
	signInPassword  = "the owner's long passphrase"
	signInAttempts  = 15
	attackAddresses = 50
	hasherAttackers = 24
)

func runSignIn(ctx context.Context, o options, srv *server, bin, dsn string, out io.Writer) error {
	for _, email := range []string{signInOwner, signInNewcomer} {
		if _, err := operator(ctx, bin, "users", "create", "--email", email, "--password", signInPassword, "--database", dsn); err != nil {
			return err
		}
	}
	attackers := make([]*signInBrowser, attackAddresses)
	for i := range attackers {
		attackers[i] = newSignInBrowser(srv.base, fmt.Sprintf("127.0.0.%d", i+2), o.timeout)
		attackers[i].guesser = true
	}
	owner := newSignInBrowser(srv.base, "127.0.0.200", o.timeout)
	if a := owner.signIn(ctx, signInOwner, signInPassword); a.status != http.StatusSeeOther {
		return fmt.Errorf("the owner's first sign-in answered %d: %s", a.status, a.detail)
	}
	// What a sign-in costs with nobody attacking, on this machine now.
	quiet := signInEvery(ctx, always(owner), signInOwner, time.Second, 3)
	fmt.Fprintf(out, "quiet: the owner's browser: %s; latency %s\n", statusSummary(quiet), latencySummary(quiet))
	// Each phase has the owner's browser on a network of its own, so the
	// per-address limits of one phase do not spill into the other.
	hashers := measureHashers(ctx, attackers, owner.from("127.0.0.202"), newSignInBrowser(srv.base, "127.0.0.201", o.timeout), out)
	lockout := measureLockout(ctx, attackers, owner, out)
	if countStatus(hashers, http.StatusSeeOther) != len(hashers) || countStatus(lockout, http.StatusSeeOther) != len(lockout) {
		fmt.Fprintln(out, "FAIL: the owner's browser was refused or not signed in")
		return errFailed{}
	}
	fmt.Fprintln(out, "PASS")
	return nil
}

// measureHashers floods the password hashers with wrong passwords for
// unknown emails, which the per-account limit does not stop, from 24
// threads, while the owner's browser and a newcomer sign in every 3 s.
func measureHashers(ctx context.Context, attackers []*signInBrowser, owner, newcomer *signInBrowser, out io.Writer) []signInAnswer {
	var posted atomic.Int64
	var mu sync.Mutex
	var strangers []signInAnswer
	flood := func(ctx context.Context) {
		var wg sync.WaitGroup
		for t := range hasherAttackers {
			wg.Go(func() {
				for i := t; ctx.Err() == nil; i += hasherAttackers {
					a := attackers[i%len(attackers)].signIn(ctx, fmt.Sprintf("nobody-%d@example.com", i), "wrong password")
					posted.Add(1)
					if ctx.Err() == nil {
						mu.Lock()
						strangers = append(strangers, a)
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
	}
	var newcomers []signInAnswer
	owners := duringAttack(ctx, flood, func(ctx context.Context) []signInAnswer {
		sleepCtx(ctx, 2*time.Second) // the hashers' queue fills
		var wg sync.WaitGroup
		wg.Go(func() { newcomers = signInEvery(ctx, always(newcomer), signInNewcomer, 3*time.Second, 5) })
		defer wg.Wait()
		return signInEvery(ctx, always(owner), signInOwner, 3*time.Second, 5)
	})
	fmt.Fprintf(out, "hashers: %d wrong passwords posted by %d threads from %d addresses: %s\n",
		posted.Load(), hasherAttackers, len(attackers), statusSummary(strangers))
	fmt.Fprintf(out, "  the owner's browser: %s; latency %s\n", statusSummary(owners), latencySummary(owners))
	fmt.Fprintf(out, "  a browser new to the server, right password: %s; latency %s\n", statusSummary(newcomers), latencySummary(newcomers))
	return owners
}

// measureLockout has strangers spend the owner's account's budget at
// once from 25 addresses, as a patient guesser would have by now, then
// guess once a second from all 50 in turn, while the owner's browser
// signs in once a second. Each of her attempts comes from a network of
// its own, so that the limits of her address (5 tries, then one per
// 12 s) play no part: what is measured is whether the strangers lock
// her account.
func measureLockout(ctx context.Context, attackers []*signInBrowser, owner *signInBrowser, out io.Writer) []signInAnswer {
	var guesses atomic.Int64
	guess := func(ctx context.Context) {
		const burst = 25
		var wg sync.WaitGroup
		for i := range burst {
			wg.Go(func() { attackers[i].signIn(ctx, signInOwner, fmt.Sprintf("guess %d", i)) })
		}
		wg.Wait()
		guesses.Add(burst)
		for i := burst; ctx.Err() == nil; i++ {
			attackers[i%len(attackers)].signIn(ctx, signInOwner, fmt.Sprintf("guess %d", i))
			guesses.Add(1)
			sleepCtx(ctx, time.Second)
		}
	}
	answers := duringAttack(ctx, guess, func(ctx context.Context) []signInAnswer {
		sleepCtx(ctx, 3*time.Second) // the burst is spent
		roaming := func(i int) *signInBrowser { return owner.from(fmt.Sprintf("127.0.0.%d", 210+i)) }
		return signInEvery(ctx, roaming, signInOwner, time.Second, signInAttempts)
	})
	fmt.Fprintf(out, "lockout: %d guesses at the owner's account from %d addresses; the owner's browser was refused %d of %d (%s); latency %s\n",
		guesses.Load(), len(attackers), countStatus(answers, http.StatusTooManyRequests), len(answers), statusSummary(answers), latencySummary(answers))
	return answers
}

// duringAttack runs attack until measure returns, and returns what it measured.
func duringAttack(ctx context.Context, attack func(context.Context), measure func(context.Context) []signInAnswer) []signInAnswer {
	attackCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { attack(attackCtx); close(done) }()
	answers := measure(ctx)
	stop()
	<-done
	return answers
}

// signInBrowser is one browser on one source address: it keeps its cookies.
type signInBrowser struct {
	http    *http.Client
	base    string
	timeout time.Duration
	guesser bool   // reuses its form
	csrf    string // the form's CSRF token
}

func newSignInBrowser(base, source string, timeout time.Duration) *signInBrowser {
	jar, _ := cookiejar.New(nil)
	return browserWithJar(base, source, timeout, jar)
}

// from is the same browser, cookies and all, on another network.
func (b *signInBrowser) from(source string) *signInBrowser {
	return browserWithJar(b.base, source, b.timeout, b.http.Jar)
}

func browserWithJar(base, source string, timeout time.Duration, jar http.CookieJar) *signInBrowser {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(source)}, Timeout: timeout}
	return &signInBrowser{base: base, timeout: timeout, http: &http.Client{
		Jar: jar, Timeout: timeout,
		Transport: &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 4, DisableCompression: true},
		// The answer to a sign-in is the redirect itself.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

type signInAnswer struct {
	status  int // 0: no answer
	latency time.Duration
	detail  string
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([0-9a-f]+)"`)
var waitFor = regexp.MustCompile(`Wait [^,]*,`)
var formMessage = regexp.MustCompile(`(Too many[^<]*|The email or password[^<]*|[^<>]*busy[^<]*)`)

// signIn loads the form (for its CSRF token) and posts it; the latency is
// the post's. A guesser loads the form once and posts it again and again.
func (b *signInBrowser) signIn(ctx context.Context, email, password string) signInAnswer {
	if b.csrf == "" || !b.guesser {
		form, err := b.get(ctx, "/sign-in")
		if err != nil {
			return signInAnswer{detail: err.Error()}
		}
		m := csrfField.FindStringSubmatch(form)
		if m == nil {
			return signInAnswer{detail: "the sign-in form has no CSRF token"}
		}
		b.csrf = m[1]
	}
	values := url.Values{"email": {email}, "password": {password}, "csrf_token": {b.csrf}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.base+"/sign-in", strings.NewReader(values.Encode()))
	if err != nil {
		return signInAnswer{detail: err.Error()}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	start := time.Now()
	res, err := b.http.Do(req)
	if err != nil {
		return signInAnswer{latency: time.Since(start), detail: err.Error()}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxBody))
	a := signInAnswer{status: res.StatusCode, latency: time.Since(start)}
	if m := formMessage.FindString(string(body)); m != "" {
		a.detail = strings.TrimSpace(m)
	}
	return a
}

// signInEvery signs in as email n times, one attempt starting every
// interval, the i-th in browser(i). Each starts with no session, as after
// closing the browser: the session cookie lives until then, other
// cookies stay.
func signInEvery(ctx context.Context, browser func(i int) *signInBrowser, email string, interval time.Duration, n int) []signInAnswer {
	var answers []signInAnswer
	next := time.Now()
	for i := range n {
		sleepCtx(ctx, time.Until(next))
		if ctx.Err() != nil {
			break
		}
		next = next.Add(interval)
		b := browser(i)
		b.forgetSession()
		answers = append(answers, b.signIn(ctx, email, signInPassword))
	}
	return answers
}

// always is the same browser for every attempt.
func always(b *signInBrowser) func(int) *signInBrowser { return func(int) *signInBrowser { return b } }

func (b *signInBrowser) forgetSession() {
	u, _ := url.Parse(b.base)
	b.http.Jar.SetCookies(u, []*http.Cookie{{Name: "cloudplane_session", Path: "/", MaxAge: -1}})
}

func (b *signInBrowser) get(ctx context.Context, path string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+path, nil)
	if err != nil {
		return "", err
	}
	res, err := b.http.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if res.StatusCode != http.StatusOK && err == nil {
		err = errors.New("GET " + path + ": " + res.Status)
	}
	return string(body), err
}

func countStatus(answers []signInAnswer, status int) int {
	n := 0
	for _, a := range answers {
		if a.status == status {
			n++
		}
	}
	return n
}

// statusSummary counts the answers by status and message, e.g.
// "303 x13, 429 x2 (Too many sign-in attempts...)".
func statusSummary(answers []signInAnswer) string {
	counts := map[string]int{}
	for _, a := range answers {
		label := fmt.Sprintf("%d", a.status)
		if a.status != http.StatusSeeOther && a.detail != "" {
			label += " (" + waitFor.ReplaceAllString(a.detail, "Wait …,") + ")"
		}
		counts[label]++
	}
	var parts []string
	for _, label := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s x%d", label, counts[label]))
	}
	return strings.Join(parts, ", ")
}

func latencySummary(answers []signInAnswer) string {
	if len(answers) == 0 {
		return "none"
	}
	ls := make([]time.Duration, len(answers))
	for i, a := range answers {
		ls[i] = a.latency
	}
	slices.Sort(ls)
	return fmt.Sprintf("p50 %s max %s", ls[len(ls)/2].Round(time.Millisecond), ls[len(ls)-1].Round(time.Millisecond))
}

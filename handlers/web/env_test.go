package web_test

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers"
	"cloudplane/handlers/testserver"
	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

const password = "correct horse battery" // modelstest.Owner's

// env is the whole app on a fresh database with an injected clock.
type env struct {
	t     *testing.T
	app   *fiber.App
	store *models.Store
	clock *modelstest.Clock
}

// envSetup is what options may change before the app is built.
type envSetup struct {
	clock     *modelstest.Clock
	app       handlers.Config
	storeOpts []models.Option
	dsn       string // the database, when the test needs its address
}

type envOption func(*envSetup)

// withLimits sets the dashboard's limiters, built on the test's clock.
func withLimits(limits func(*modelstest.Clock) web.Limits) envOption {
	return func(s *envSetup) { s.app.SignIn = limits(s.clock) }
}

// atDSN opens the app on the database at dsn (modelstest.DSN).
func atDSN(dsn string) envOption { return func(s *envSetup) { s.dsn = dsn } }

// withTrustedProxies trusts the named peers to name the client and the
// scheme. app.Test's requests come from 0.0.0.0.
func withTrustedProxies(proxies ...string) envOption {
	return func(s *envSetup) { s.app.TrustedProxies = proxies }
}

// withConfig changes the store's configuration, starting from modelstest's.
func withConfig(change func(*models.Config)) envOption {
	return func(s *envSetup) {
		cfg := modelstest.Config()
		change(&cfg)
		s.storeOpts = append(s.storeOpts, models.WithConfig(cfg))
	}
}

func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	s := envSetup{clock: modelstest.NewClock(),
		app: handlers.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	for _, o := range opts {
		o(&s)
	}
	if s.dsn == "" {
		s.dsn = modelstest.DSN(t)
	}
	store := modelstest.OpenAt(t, s.dsn, append([]models.Option{models.WithClock(s.clock.Now)}, s.storeOpts...)...)
	s.app.Store = store
	return &env{t: t, app: handlers.New(s.app), store: store, clock: s.clock}
}

// owner creates an owner without API keys.
func (e *env) owner(email string) *models.User {
	e.t.Helper()
	return e.user(email, models.RoleOwner)
}

func (e *env) user(email, role string) *models.User {
	e.t.Helper()
	u, err := e.store.CreateUser(context.Background(), models.OperatorActor,
		models.CreateUserInput{Email: email, Password: password, Role: role})
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// apiKey creates a key for u, as the CLI would.
func (e *env) apiKey(u *models.User, name string) (*models.APIKey, string) {
	e.t.Helper()
	k, secret, err := e.store.CreateAPIKey(context.Background(), u.Actor(), models.CreateAPIKeyInput{Name: name})
	if err != nil {
		e.t.Fatal(err)
	}
	return k, secret
}

// browser is one visitor: it keeps cookies and the last CSRF token seen.
type browser struct {
	e       *env
	cookies map[string]string
	csrf    string
	htmx    bool
	header  http.Header // added to every request
}

func (e *env) browser() *browser {
	return &browser{e: e, cookies: map[string]string{}, header: http.Header{}}
}

// signedIn returns a browser signed in as email, on the home page.
func (e *env) signedIn(email string) *browser {
	e.t.Helper()
	b := e.browser()
	b.signIn(email, password).expect(http.StatusSeeOther)
	b.get("/").expect(http.StatusOK)
	return b
}

func (b *browser) signIn(email, pw string) *page {
	b.e.t.Helper()
	b.get("/sign-in")
	return b.post("/sign-in", url.Values{"email": {email}, "password": {pw}})
}

// page is one response.
type page struct {
	t      *testing.T
	Status int
	Header http.Header
	Body   string
}

func (b *browser) get(path string) *page {
	b.e.t.Helper()
	return b.send(httptest.NewRequest(http.MethodGet, path, nil))
}

// post submits a form with the browser's CSRF token, unless the form
// sets csrf_token itself (an empty value sends none).
func (b *browser) post(path string, form url.Values) *page {
	b.e.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, set := form["csrf_token"]; !set {
		form.Set("csrf_token", b.csrf)
	} else if form.Get("csrf_token") == "" {
		form.Del("csrf_token")
	}
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.send(req)
}

var csrfInPage = regexp.MustCompile(`name="csrf-token" content="([0-9a-f]+)"|name="csrf_token" value="([0-9a-f]+)"`)

func (b *browser) send(req *http.Request) *page {
	b.e.t.Helper()
	for name, value := range b.cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: value})
	}
	for name, values := range b.header {
		req.Header[name] = values
	}
	if b.htmx {
		req.Header.Set("HX-Request", "true")
	}
	res, raw := testserver.Test(b.e.t, b.e.app, req)
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	if m := csrfInPage.FindStringSubmatch(string(raw)); m != nil {
		b.csrf = m[1] + m[2]
	}
	return &page{t: b.e.t, Status: res.StatusCode, Header: res.Header, Body: string(raw)}
}

func (p *page) expect(status int) *page {
	p.t.Helper()
	if p.Status != status {
		p.t.Fatalf("status %d, want %d; body:\n%s", p.Status, status, p.Body)
	}
	return p
}

func (p *page) contains(texts ...string) *page {
	p.t.Helper()
	for _, s := range texts {
		if !strings.Contains(p.Body, s) {
			p.t.Fatalf("page lacks %q; body:\n%s", s, p.Body)
		}
	}
	return p
}

func (p *page) lacks(texts ...string) *page {
	p.t.Helper()
	for _, s := range texts {
		if strings.Contains(p.Body, s) {
			p.t.Fatalf("page has %q; body:\n%s", s, p.Body)
		}
	}
	return p
}

// hasHeader checks one of the answer's headers.
func (p *page) hasHeader(name, want string) *page {
	p.t.Helper()
	if got := p.Header.Get(name); got != want {
		p.t.Fatalf("%s: %q, want %q", name, got, want)
	}
	return p
}

// redirectsTo checks a redirect: 303 with Location, or HX-Redirect for htmx.
func (p *page) redirectsTo(want string) *page {
	p.t.Helper()
	got := p.Header.Get("Location")
	if p.Status != http.StatusSeeOther {
		got = p.Header.Get("HX-Redirect")
	}
	if got != want {
		p.t.Fatalf("redirect to %q (status %d), want %q; body:\n%s", got, p.Status, want, p.Body)
	}
	return p
}

// fieldError checks that the message is shown beside the field. msg may
// be written as text or as escaped HTML.
func (p *page) fieldError(field, msg string) *page {
	p.t.Helper()
	re := regexp.MustCompile(`id="field-` + regexp.QuoteMeta(field) + `-error">([^<]*)<`)
	m := re.FindStringSubmatch(p.Body)
	if m == nil || html.UnescapeString(m[1]) != html.UnescapeString(msg) {
		p.t.Fatalf("field %s shows %q, want %q; body:\n%s", field, m, msg, p.Body)
	}
	if !strings.Contains(p.Body, `aria-describedby="field-`+field+`-error"`) && !strings.Contains(p.Body, `field-`+field+`-hint field-`+field+`-error"`) {
		p.t.Fatalf("field %s is not described by its error", field)
	}
	return p
}

func (p *page) cookie(name string) *http.Cookie {
	p.t.Helper()
	for _, line := range p.Header.Values("Set-Cookie") {
		if c, err := http.ParseSetCookie(line); err == nil && c.Name == name {
			return c
		}
	}
	return nil
}

// apiStatus calls the JSON API with an API key and returns the status.
func (e *env) apiStatus(key, path string) int {
	e.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, _ := testserver.Test(e.t, e.app, req)
	return res.StatusCode
}

// events returns the newest audit events of the user's account.
func (e *env) events(u *models.User, n int) []models.AuditEvent {
	e.t.Helper()
	evs, err := e.store.LatestAuditEvents(context.Background(), u.Actor(), n)
	if err != nil {
		e.t.Fatal(err)
	}
	return evs
}

// running inserts an active instance of u's account, which holds what it
// mounts and what is attached to it, as modelstest's helpers do.
func (e *env) running(u *models.User) *models.Instance {
	e.t.Helper()
	return modelstest.InsertInstance(e.t, e.store, models.Instance{AccountID: *u.AccountID, Status: models.InstanceActive})
}

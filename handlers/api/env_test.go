package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/api/apitest"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// env is one API under test: a real app on a fresh database, an owner with
// a key, and the reference document that every response is checked against.
type env struct {
	t     *testing.T
	app   *fiber.App
	store *models.Store
	clock *modelstest.Clock
	spec  *apitest.Spec // the reference document, when ../shared is here
	own   *apitest.Spec // cloudplane's own document, always
	owner *models.User
	key   string
}

type envOption func(*envConfig)

type envConfig struct {
	limits  api.Limits
	store   []models.Option
	proxies []string
	dsn     string // the database, when the test needs its address
}

func withLimits(l api.Limits) envOption { return func(c *envConfig) { c.limits = l } }

// withTrustedProxies trusts the named peers to name the client in
// X-Real-IP. app.Test's requests come from 0.0.0.0.
func withTrustedProxies(proxies ...string) envOption {
	return func(c *envConfig) { c.proxies = proxies }
}

// atDSN opens the app on the database at dsn (modelstest.DSN).
func atDSN(dsn string) envOption { return func(c *envConfig) { c.dsn = dsn } }

func withStoreOptions(o ...models.Option) envOption {
	return func(c *envConfig) { c.store = append(c.store, o...) }
}

// newEnv builds the app with rate limits off unless an option sets them.
func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	var cfg envConfig
	for _, o := range opts {
		o(&cfg)
	}
	clock := modelstest.NewClock()
	if cfg.dsn == "" {
		cfg.dsn = modelstest.DSN(t)
	}
	store := modelstest.OpenAt(t, cfg.dsn, append([]models.Option{models.WithClock(clock.Now)}, cfg.store...)...)
	owner, key := modelstest.Owner(t, store, "owner@example.com")
	app := handlers.New(handlers.Config{Store: store, Limits: cfg.limits, TrustedProxies: cfg.proxies})
	return &env{t: t, app: app, store: store, clock: clock, spec: apitest.Optional(t), own: apitest.Cloudplane(t), owner: owner, key: key}
}

// listen serves the app on a loopback port until the test ends and
// returns its base URL, for behaviour that app.Test bypasses.
func (e *env) listen() string {
	e.t.Helper()
	return testserver.Serve(e.t, e.app).URL
}

// response is what the app answered.
type response struct {
	t      *testing.T
	Status int
	Header http.Header
	Body   []byte
}

// do sends a request with the env's key as a Bearer token.
func (e *env) do(method, path string, body any) *response {
	e.t.Helper()
	return e.doAs(e.key, method, path, body)
}

// doAs sends a request with the given key ("" sends none) and checks the
// response against the reference document.
func (e *env) doAs(key, method, path string, body any) *response {
	e.t.Helper()
	req := httptest.NewRequest(method, path, encodeBody(e.t, body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return e.send(req)
}

// send runs req through the app and validates the answer.
func (e *env) send(req *http.Request) *response {
	e.t.Helper()
	res, raw := testserver.Test(e.t, e.app, req)
	r := &response{t: e.t, Status: res.StatusCode, Header: res.Header, Body: raw}
	// Routes we do not serve are not in the document either. An answer of
	// global/not-found is checked too where a route serves it: that is the
	// 404 the reference declares for some objects.
	if e.own.Documents(req.Method, req.URL.RequestURI()) {
		e.validate(e.t, req.Method, req.URL.RequestURI(), r.Status, r.Header, r.Body)
	}
	return r
}

// validate checks an answer against the reference document and against
// cloudplane's own.
func (e *env) validate(tb testing.TB, method, uri string, status int, header http.Header, body []byte) {
	tb.Helper()
	e.spec.ValidateResponse(tb, method, uri, status, header, body)
	e.own.ValidateResponse(tb, method, uri, status, header, body)
}

func encodeBody(t *testing.T, body any) io.Reader {
	t.Helper()
	switch b := body.(type) {
	case nil:
		return nil
	case string:
		return strings.NewReader(b)
	case []byte:
		return bytes.NewReader(b)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(raw)
}

// expect fails the test unless the status is want.
func (r *response) expect(want int) *response {
	r.t.Helper()
	if r.Status != want {
		r.t.Fatalf("status %d, want %d; body: %s", r.Status, want, r.Body)
	}
	return r
}

// expectError fails the test unless the response is the error envelope
// with the given status and code, and a request_id matching the header.
func (r *response) expectError(status int, code models.Code) *response {
	r.t.Helper()
	r.expect(status)
	var body struct {
		Error struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	r.decode(&body)
	if body.Error.Code != string(code) {
		r.t.Fatalf("error code %q, want %q; body: %s", body.Error.Code, code, r.Body)
	}
	if body.Error.Message == "" {
		r.t.Fatalf("error without a message: %s", r.Body)
	}
	if id := r.Header.Get("X-Request-Id"); id == "" || body.Error.RequestID != id {
		r.t.Fatalf("request_id %q does not match X-Request-Id %q", body.Error.RequestID, id)
	}
	return r
}

// message returns the error message of an error envelope.
func (r *response) message() string {
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.Error.Message
}

func (r *response) code() string {
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.Error.Code
}

// decode unmarshals the whole body into v.
func (r *response) decode(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// data unmarshals the "data" member of a success body into v.
func (r *response) data(v any) {
	r.t.Helper()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	r.decode(&env)
	if err := json.Unmarshal(env.Data, v); err != nil {
		r.t.Fatalf("decode data %s: %v", env.Data, err)
	}
}

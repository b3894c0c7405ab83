package web_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// testOP is a small OpenID provider for the tests: discovery, keys, an
// authorization endpoint that signs in its current user at once, and a
// token endpoint that insists on PKCE (S256) and the client's secret.
// It signs real RS256 ID tokens, which tamper may change first, to play
// a provider that misbehaves or an attacker in the middle.
type testOP struct {
	t      *testing.T
	srv    *httptest.Server
	key    *rsa.PrivateKey
	now    func() time.Time
	mu     sync.Mutex
	user   map[string]any // sub, email, email_verified, name
	codes  map[string]opGrant
	tamper func(claims map[string]any) // nil: none
	signer *testOP                     // sign with another provider's key
	asked  url.Values                  // the last authorization request
}

type opGrant struct {
	clientID, redirect, nonce, challenge string
}

const opClientID, opClientSecret = "cloudplane", "s3cret"

func newTestOP(t *testing.T, now func() time.Time) *testOP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	op := &testOP{t: t, key: key, now: now, codes: map[string]opGrant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", op.discovery)
	mux.HandleFunc("GET /keys", op.keys)
	mux.HandleFunc("GET /authorize", op.authorize)
	mux.HandleFunc("POST /token", op.token)
	op.srv = httptest.NewServer(mux)
	t.Cleanup(op.srv.Close)
	return op
}

func (op *testOP) issuer() string { return op.srv.URL }

// signIn makes the person the provider signs in next.
func (op *testOP) signIn(sub, email string, verified any) {
	op.mu.Lock()
	defer op.mu.Unlock()
	op.user = map[string]any{"sub": sub, "email": email, "name": "Test Person"}
	if verified != nil {
		op.user["email_verified"] = verified
	}
}

func (op *testOP) discovery(w http.ResponseWriter, _ *http.Request) {
	_ = json.NewEncoder(w).Encode(map[string]any{
		"issuer": op.issuer(), "authorization_endpoint": op.issuer() + "/authorize",
		"token_endpoint": op.issuer() + "/token", "jwks_uri": op.issuer() + "/keys",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
	})
}

func (op *testOP) keys(w http.ResponseWriter, _ *http.Request) {
	_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &op.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
}

// authorize checks the request as a provider would and sends the browser
// back with a code.
func (op *testOP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("client_id") != opClientID || q.Get("code_challenge_method") != "S256" ||
		len(q.Get("code_challenge")) != 43 || q.Get("nonce") == "" || q.Get("state") == "" {
		http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
		return
	}
	code := randomString()
	op.mu.Lock()
	op.asked = q
	op.codes[code] = opGrant{clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), nonce: q.Get("nonce"), challenge: q.Get("code_challenge")}
	op.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (op *testOP) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.FormValue("client_id"), r.FormValue("client_secret")
	}
	op.mu.Lock()
	g, found := op.codes[r.FormValue("code")]
	delete(op.codes, r.FormValue("code"))
	user, tamper, signer := op.user, op.tamper, op.signer
	op.mu.Unlock()
	sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
	switch {
	case id != opClientID || secret != opClientSecret:
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	case !found || g.redirect != r.FormValue("redirect_uri") ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
		return
	}
	now := op.now()
	claims := map[string]any{"iss": op.issuer(), "aud": opClientID, "nonce": g.nonce,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "auth_time": now.Unix()}
	for k, v := range user {
		claims[k] = v
	}
	if tamper != nil {
		tamper(claims)
	}
	if signer == nil {
		signer = op
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "at", "token_type": "Bearer",
		"expires_in": 300, "id_token": signer.sign(claims)})
}

func (op *testOP) sign(claims map[string]any) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: op.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		op.t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	obj, err := s.Sign(payload)
	if err != nil {
		op.t.Fatal(err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		op.t.Fatal(err)
	}
	return out
}

func randomString() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

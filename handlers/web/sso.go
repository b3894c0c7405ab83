package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// SSOProvider is an OpenID Connect provider the operator configured: ID
// names it in URLs (/sso/<id>/...) and in sessions ("sso:<id>"), Name on
// the sign-in button. Scopes default to openid, email and profile.
type SSOProvider struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Issuer       string   `json:"issuer"`
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret"`
	Scopes       []string `json:"scopes"`
	// TrustEmail takes every email this provider sends as verified, for
	// a provider that never sends email_verified but whose addresses only
	// its administrators set (a company's Microsoft Entra ID tenant).
	TrustEmail bool `json:"trust_email"`
}

// SSOCallbackPath is where a provider sends the browser back to:
// <base URL>/sso/<id>/callback, the redirect URI to register.
func SSOCallbackPath(id string) string { return "/sso/" + id + "/callback" }

var ssoIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// SSO is the OpenID Connect client of the dashboard. A provider's
// discovery document and keys are fetched on first use, and again after a
// failure, so a provider that is down when the server starts stops
// nobody else from signing in, and is used once it is back.
type SSO struct {
	providers []*ssoProvider
	byID      map[string]*ssoProvider
	baseURL   string
	client    *http.Client
	now       func() time.Time
	log       *slog.Logger
}

type ssoProvider struct {
	SSOProvider
	mu       sync.Mutex
	provider *oidc.Provider
}

// SSOOption changes how NewSSO's client works (tests).
type SSOOption func(*SSO)

// WithSSOClock makes the ID token's expiry checked against now.
func WithSSOClock(now func() time.Time) SSOOption { return func(s *SSO) { s.now = now } }

// WithSSOHTTPClient makes discovery, keys and the code exchange go
// through client.
func WithSSOHTTPClient(client *http.Client) SSOOption { return func(s *SSO) { s.client = client } }

// NewSSO checks the providers and returns the client; baseURL is the
// dashboard's public URL, from which redirect URIs are made (SetBaseURL
// may set it later, before serving). No provider is contacted yet.
func NewSSO(providers []SSOProvider, baseURL string, log *slog.Logger, opts ...SSOOption) (*SSO, error) {
	s := &SSO{byID: map[string]*ssoProvider{}, baseURL: strings.TrimSuffix(baseURL, "/"),
		client: &http.Client{Timeout: 10 * time.Second}, now: time.Now, log: log}
	if s.log == nil {
		s.log = slog.Default()
	}
	for _, o := range opts {
		o(s)
	}
	for _, p := range providers {
		switch {
		case !ssoIDPattern.MatchString(p.ID):
			return nil, fmt.Errorf("identity provider id %q: use 1 to 32 lower-case letters, digits or dashes", p.ID)
		case s.byID[p.ID] != nil:
			return nil, fmt.Errorf("identity provider id %q is used twice", p.ID)
		case p.Issuer == "" || p.ClientID == "":
			return nil, fmt.Errorf("identity provider %q needs an issuer and a client id", p.ID)
		}
		if p.Name == "" {
			p.Name = p.ID
		}
		if len(p.Scopes) == 0 {
			p.Scopes = []string{oidc.ScopeOpenID, "email", "profile"}
		}
		sp := &ssoProvider{SSOProvider: p}
		s.providers = append(s.providers, sp)
		s.byID[p.ID] = sp
	}
	return s, nil
}

// SetBaseURL sets the public URL redirect URIs are made from. Call it
// before serving.
func (s *SSO) SetBaseURL(u string) { s.baseURL = strings.TrimSuffix(u, "/") }

// Warm fetches every provider's discovery document, logging those that
// fail; they are tried again at their first sign-in.
func (s *SSO) Warm(ctx context.Context) {
	for _, p := range s.providers {
		if _, err := s.discover(ctx, p); err != nil {
			s.log.Warn("identity provider unreachable; single sign-on with it fails until it answers",
				"provider", p.ID, "issuer", p.Issuer, "err", err)
		}
	}
}

// discover returns p's provider, fetching its discovery document if no
// earlier attempt succeeded.
func (s *SSO) discover(ctx context.Context, p *ssoProvider) (*oidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.provider != nil {
		return p.provider, nil
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, s.client), 10*time.Second)
	defer cancel()
	prov, err := oidc.NewProvider(ctx, p.Issuer)
	if err != nil {
		return nil, err
	}
	p.provider = prov
	return prov, nil
}

// oauth returns the authorization code flow's configuration for p.
func (s *SSO) oauth(p *ssoProvider, prov *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{ClientID: p.ClientID, ClientSecret: p.ClientSecret, Endpoint: prov.Endpoint(),
		RedirectURL: s.baseURL + SSOCallbackPath(p.ID), Scopes: p.Scopes}
}

// ssoClaims is what cloudplane reads from an ID token.
type ssoClaims struct {
	Subject       string `json:"sub"`
	Email         string `json:"email"`
	EmailVerified any    `json:"email_verified"`
	Name          string `json:"name"`
	// AuthTime is when the person last signed in at the provider (Unix
	// seconds; 0 when not sent), checked on a re-authentication.
	AuthTime float64 `json:"auth_time"`
}

// verified reads email_verified: true, or the string "true" some
// providers send. Missing means not verified, unless the operator trusts
// the provider's addresses.
func (c ssoClaims) verified(p *ssoProvider) bool {
	if p.TrustEmail {
		return true
	}
	switch v := c.EmailVerified.(type) {
	case bool:
		return v
	case string:
		return strings.EqualFold(v, "true")
	}
	return false
}

// errSSOToken is a provider's answer that did not verify.
var errSSOToken = errors.New("sso: the identity provider's answer did not verify")

// exchange trades the code for tokens with the PKCE verifier, verifies
// the ID token (signature by the issuer's keys, issuer, audience, expiry)
// and its nonce, and returns its claims, completed from the userinfo
// endpoint when the ID token has no email.
func (s *SSO) exchange(ctx context.Context, p *ssoProvider, code, verifier, nonce string) (*ssoClaims, error) {
	prov, err := s.discover(ctx, p)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, s.client), 15*time.Second)
	defer cancel()
	tok, err := s.oauth(p, prov).Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("%w: code exchange: %v", errSSOToken, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, fmt.Errorf("%w: no id_token", errSSOToken)
	}
	idToken, err := prov.VerifierContext(ctx, &oidc.Config{ClientID: p.ClientID, Now: s.now}).Verify(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSSOToken, err)
	}
	if subtle.ConstantTimeCompare([]byte(idToken.Nonce), []byte(nonce)) != 1 {
		return nil, fmt.Errorf("%w: nonce does not match", errSSOToken)
	}
	var c ssoClaims
	if err := idToken.Claims(&c); err != nil {
		return nil, fmt.Errorf("%w: claims: %v", errSSOToken, err)
	}
	if c.Email == "" && prov.UserInfoEndpoint() != "" {
		// Some providers (Okta's, zitadel's) keep the email out of the ID
		// token when an access token is issued: ask for it, for the same
		// subject only (OpenID Connect Core 5.3.2).
		info, err := prov.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return nil, fmt.Errorf("%w: userinfo: %v", errSSOToken, err)
		}
		var u ssoClaims
		if err := info.Claims(&u); err != nil || u.Subject != c.Subject {
			return nil, fmt.Errorf("%w: userinfo for another subject", errSSOToken)
		}
		c.Email, c.EmailVerified = u.Email, u.EmailVerified
	}
	return &c, nil
}

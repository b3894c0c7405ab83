package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"cloudplane/handlers/web"
)

// ssoFlags configure single sign-on: one OpenID provider by flags, or
// several in a JSON file.
type ssoFlags struct {
	issuer, clientID, clientSecret, name, id string
	configFile                               string
	trustEmail                               bool
}

func (f *ssoFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.issuer, "oidc-issuer", "", "OpenID Connect issuer URL of the identity provider for single sign-on (e.g. https://accounts.google.com); off when empty")
	fs.StringVar(&f.clientID, "oidc-client-id", "", "client id cloudplane has at the --oidc-issuer provider")
	fs.StringVar(&f.clientSecret, "oidc-client-secret", "", "client secret cloudplane has at the --oidc-issuer provider (prefer CLOUDPLANE_OIDC_CLIENT_SECRET)")
	fs.StringVar(&f.id, "oidc-id", "oidc", "id of the --oidc-issuer provider in URLs (/sso/<id>/callback) and sessions")
	fs.StringVar(&f.name, "oidc-name", "single sign-on", "name of the --oidc-issuer provider on the sign-in button")
	fs.BoolVar(&f.trustEmail, "oidc-trust-email", false, "take every email the --oidc-issuer provider sends as verified, for one that never sends email_verified (Microsoft Entra ID)")
	fs.StringVar(&f.configFile, "oidc-config", "", "JSON file listing several identity providers: [{\"id\", \"name\", \"issuer\", \"client_id\", \"client_secret\", \"scopes\"}]")
}

// providers returns the configured providers: none, the flags' one, or
// the file's. The two ways do not mix.
func (f *ssoFlags) providers() ([]web.SSOProvider, error) {
	var out []web.SSOProvider
	if f.issuer != "" || f.clientID != "" {
		if f.issuer == "" || f.clientID == "" {
			return nil, errors.New("--oidc-issuer and --oidc-client-id go together")
		}
		out = append(out, web.SSOProvider{ID: f.id, Name: f.name, Issuer: f.issuer, ClientID: f.clientID, ClientSecret: f.clientSecret,
			TrustEmail: f.trustEmail})
	}
	if f.configFile == "" {
		return out, nil
	}
	if len(out) > 0 {
		return nil, errors.New("use --oidc-config or --oidc-issuer, not both")
	}
	b, err := os.ReadFile(f.configFile)
	if err != nil {
		return nil, fmt.Errorf("--oidc-config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("--oidc-config %s: %w", f.configFile, err)
	}
	return out, nil
}

// sso builds the dashboard's OpenID client, or nil without providers.
// Providers are contacted later (Warm, then at sign-in): one that is down
// does not stop the server.
func (f *ssoFlags) sso(baseURL string, log *slog.Logger) (*web.SSO, error) {
	providers, err := f.providers()
	if err != nil || len(providers) == 0 {
		return nil, err
	}
	sso, err := web.NewSSO(providers, baseURL, log)
	if err != nil {
		return nil, fmt.Errorf("single sign-on: %w", err)
	}
	return sso, nil
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Single sign-on is configured by flags for one provider or by a file for
// several, not both; a file with an unknown key or a bad id is refused at
// start.
func TestSSOFlags(t *testing.T) {
	none := ssoFlags{}
	if sso, err := none.sso("http://x", nil); sso != nil || err != nil {
		t.Fatalf("no provider: %v %v", sso, err)
	}
	one := ssoFlags{issuer: "https://id.example", clientID: "c", id: "oidc", name: "Corp"}
	if ps, err := one.providers(); err != nil || len(ps) != 1 || ps[0].ID != "oidc" || ps[0].Name != "Corp" {
		t.Fatalf("flags: %+v %v", ps, err)
	}
	if _, err := (&ssoFlags{issuer: "https://id.example"}).providers(); err == nil {
		t.Fatal("an issuer without a client id was accepted")
	}
	dir := t.TempDir()
	file := func(body string) string {
		p := filepath.Join(dir, "p.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	many := ssoFlags{configFile: file(`[{"id":"google","name":"Google","issuer":"https://accounts.google.com","client_id":"g"},
		{"id":"okta","issuer":"https://example.okta.com","client_id":"o","client_secret":"s","scopes":["openid","email"]}]`)}
	if sso, err := many.sso("http://x", nil); err != nil || sso == nil {
		t.Fatalf("file: %v", err)
	}
	for body, want := range map[string]string{
		`[{"id":"g","issuer":"https://i","client_id":"c","secret":"typo"}]`:                                 "unknown field",
		`[{"id":"Bad Id","issuer":"https://i","client_id":"c"}]`:                                            "lower-case",
		`[{"id":"a","issuer":"https://i","client_id":"c"},{"id":"a","issuer":"https://j","client_id":"d"}]`: "twice",
	} {
		f := ssoFlags{configFile: file(body)}
		if _, err := f.sso("http://x", nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	both := ssoFlags{issuer: "https://i", clientID: "c", configFile: file(`[]`)}
	if _, err := both.providers(); err == nil {
		t.Fatal("flags and a file together were accepted")
	}
}

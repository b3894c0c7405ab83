package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"

	"cloudplane/e2e/browser"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// The example OpenID provider of github.com/zitadel/oidc, in this process:
// its users are test-user@<host> (email test-user@zitadel.ch) and
// test-user2 (test-user2@zitadel.ch), password "verysecure", both with
// verified emails.
const (
	opUser1, opUser1Email = "test-user@127.0.0.1", "test-user@zitadel.ch"
	opUser2, opUser2Email = "test-user2", "test-user2@zitadel.ch"
	opPassword            = "verysecure"
)

// startExampleOP serves zitadel's example provider on 127.0.0.1 and
// returns its issuer.
func startExampleOP(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	router := exampleop.SetupServer(issuer, storage.NewStorage(storage.NewUserStore(issuer)), nil, false)
	srv := &http.Server{Handler: router, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("example provider: %v", err)
		}
	}()
	t.Cleanup(func() { _ = srv.Close() })
	return issuer
}

// In Chromium, against a real OpenID provider: an owner connects it from
// their account page (through the provider's login page) and links their
// email domain; a colleague
// then joins the account just in time as a viewer, and the owner's
// password is refused, pointing at single sign-on.
func TestSSOInChromium(t *testing.T) {
	s := need(t)
	issuer, srv, db := ssoServer(t, s)
	ownerWithPassword(t, s, db, opUser1Email)

	// The provider is not trusted with an existing user by email: the
	// owner signs in with their password and connects it first.
	owner := connectedOwner(t, s, srv.URL, issuer)
	owner.Open("/members#sso")
	owner.Fill("#sso", "Email domain", "zitadel.ch")
	owner.Choose("#sso", "Identity provider", "zitadel")
	owner.Choose("#sso", "Role of people who join", "viewer")
	owner.Press("#sso", "^Link domain$")
	owner.WaitText("main", "zitadel.ch now signs in with single sign-on")
	owner.Shot("domain linked")

	colleague := browser.NewTab(t, s.browser, srv.URL, s.shots)
	ssoSignIn(colleague, issuer, opUser2, opUser2Email)
	owner.Open("/members")
	row := owner.RowWith(strings.ReplaceAll(opUser2Email, ".", `\.`))
	if text := owner.Text(row); !strings.Contains(text, "Viewer") {
		owner.Fail("the colleague's row says %q, want Viewer", text)
	}

	again := browser.NewTab(t, s.browser, srv.URL, s.shots)
	again.Open("/sign-in")
	again.Fill("main", "^Email$", opUser1Email)
	again.Fill("main", "^Password$", password)
	again.Press("main", "^Sign in$")
	again.WantFieldError("main", "^Email$", "single sign-on")
}

// ssoServer starts the example provider and a cloudplane server that
// offers it as "Zitadel" (id zitadel), and returns the provider's issuer,
// the server and its database.
func ssoServer(t *testing.T, s *suite) (string, *testserver.Server, string) {
	t.Helper()
	issuer := startExampleOP(t)
	db, drop, err := testserver.FreshDatabase(t.TempDir(), testserver.PostgresURL(), modelstest.CreatePostgresDB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = drop() })
	srv, err := testserver.Launch(testserver.Options{Database: db, Binary: s.bin, Args: []string{
		"--rate-limit", "off", "--oidc-issuer", issuer, "--oidc-client-id", "cloudplane-e2e",
		"--oidc-id", "zitadel", "--oidc-name", "Zitadel"},
		Env: []string{"CLOUDPLANE_OIDC_CLIENT_SECRET=e2e-secret"}})
	if srv != nil {
		t.Cleanup(func() {
			_ = srv.Terminate(30 * time.Second)
			_ = os.WriteFile(filepath.Join(s.shots.Dir, "sso-server.log"), []byte(srv.Logs()), 0o644)
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	storage.RegisterClients(storage.WebClient("cloudplane-e2e", "e2e-secret", srv.URL+"/sso/zitadel/callback"))
	return issuer, srv, db
}

// ownerWithPassword creates the owner email with the tests' password.
func ownerWithPassword(t *testing.T, s *suite, db, email string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	if _, stderr, code, err := testserver.RunContext(ctx, s.bin, nil, "users", "create", "--email", email,
		"--password", password, "--database", db); err != nil || code != 0 {
		t.Fatalf("users create: %d %v %s", code, err, stderr)
	}
}

// connectedOwner signs opUser1Email in with their password in a new tab
// and connects the provider's test-user from the account page.
func connectedOwner(t *testing.T, s *suite, base, issuer string) *browser.Tab {
	t.Helper()
	owner := browser.NewTab(t, s.browser, base, s.shots)
	owner.Open("/sign-in")
	owner.Fill("main", "^Email$", opUser1Email)
	owner.Fill("main", "^Password$", password)
	owner.Press("main", "^Sign in$")
	owner.WaitText("#site-header", strings.ReplaceAll(opUser1Email, ".", `\.`))
	owner.Open("/account#sso-connections")
	owner.Press("#sso-connections", "^Connect Zitadel$")
	providerLogin(owner, issuer, opUser1)
	owner.WaitJS("the account page to list the connection", fmt.Sprintf(
		`location.pathname === "/account" && textMatches("#sso-connections", %s)`,
		browser.JS(strings.ReplaceAll(opUser1Email, ".", `\.`))))
	owner.Shot("provider connected")
	return owner
}

// A stale session confirms it's you by signing in again at the provider:
// "Sign in again with Zitadel" is a link (a form's redirect to the
// provider is stopped by CSP's form-action), the provider's login page
// asks again, and the callback confirms the session and goes on.
func TestSSOConfirmIdentityInChromium(t *testing.T) {
	s := need(t)
	issuer, srv, db := ssoServer(t, s)
	ownerWithPassword(t, s, db, opUser1Email)
	b := connectedOwner(t, s, srv.URL, issuer)

	ageSessions(t, db)
	b.Open("/") // the account page opens from elsewhere: a fragment alone is no navigation
	b.Open("/account#sso-connections")
	b.Press("#sso-connections", "^Connect Zitadel$")
	b.WaitText("main", "Confirm it's you")
	b.Shot("asked to confirm before connecting")
	b.Press("main", "^Sign in again with Zitadel$")
	providerLogin(b, issuer, opUser1)
	b.WaitJS("the account page after confirming", `location.pathname === "/account" && !!document.querySelector("#sso-connections")`)
	b.Ready()
	store := modelstest.OpenAt(t, db)
	var n int64
	if err := store.DB().Model(&models.AuditEvent{}).Where("action = 'reauthenticated' AND additional_details LIKE ?",
		`%"method":"sso:zitadel"%`).Count(&n).Error; err != nil || n != 1 {
		b.Fail("%d re-authentications through Zitadel recorded (%v), want 1", n, err)
	}
}

// ssoSignIn signs b in with the provider's button, at the provider's own
// login page, and waits for the dashboard to name the user.
func ssoSignIn(b *browser.Tab, issuer, username, email string) {
	b.T.Helper()
	b.Open("/sign-in")
	b.Press("", "^Sign in with Zitadel$")
	providerLogin(b, issuer, username)
	b.WaitJS("the dashboard to name "+email, fmt.Sprintf(`location.href.startsWith(%s) && textMatches("#site-header", %s)`,
		browser.JS(b.Base+"/"), browser.JS(strings.ReplaceAll(email, ".", `\.`))))
	b.Ready()
}

// providerLogin signs in at the provider's own login page, where b was
// sent.
func providerLogin(b *browser.Tab, issuer, username string) {
	b.T.Helper()
	b.WaitJS("the provider's login page", fmt.Sprintf(`location.href.startsWith(%s) && !!document.querySelector("#username")`,
		browser.JS(issuer+"/login")))
	b.Shot("provider login")
	b.Fill("", "Username", username)
	b.Fill("", "Password", opPassword)
	b.Press("", "^Login$")
}

package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/web"
	"cloudplane/models"
)

// postRouteParams fill the parameters of a route's pattern with objects
// of the owner's, by the path they follow.
type postRouteParams map[string]string

func (p postRouteParams) path(pattern string) (string, bool) {
	parts := strings.Split(pattern, "/")
	for i, part := range parts {
		if !strings.HasPrefix(part, ":") {
			continue
		}
		v, ok := p[strings.Join(parts[:i], "/")]
		if !ok {
			return "", false
		}
		parts[i] = v
	}
	return strings.Join(parts, "/"), true
}

// Post/redirect/get everywhere: every form the dashboard posts to has an
// address that answers GET, so a reload (or Back then Forward) after a
// post answered in place never meets a 404 or 405. The walk reads the
// route table, so a form added without its GET fails here.
func TestEveryPostedAddressAnswersGet(t *testing.T) {
	e := newEnv(t)
	ada, instanceID := e.ownerWithInstance("ada@example.com", "web-1")
	key, _ := e.apiKey(ada, "laptop")
	hook := e.webhook(ada, "https://hooks.example.com/")
	tk := e.ticket(ada, "It broke")
	deliveries := e.deliveryIDs(ada.Actor(), models.DeliveryFilter{})
	if len(deliveries) == 0 {
		t.Fatal("no delivery to walk")
	}
	params := postRouteParams{
		"/api-keys": key.ID, "/filesystems": e.filesystem(ada, "data", "us-east-1").ID,
		"/firewall/rulesets": e.ruleset(ada, "web", "us-east-1").ID, "/instances": instanceID,
		"/ssh-keys": e.sshKey(ada, "spare").ID, "/tickets": tk.ID, "/webhook-deliveries": deliveries[0],
		"/webhook": hook.ID,
	}
	b := e.signedIn("ada@example.com")
	b.upload(tk.ID, "df.txt", "text/plain", []byte("100% used")).redirectsTo("/tickets/" + tk.ID)
	var attachments []string
	e.store.DB().Model(&models.TicketAttachment{}).Pluck("id", &attachments)
	if len(attachments) != 1 {
		t.Fatalf("%d attachments to walk", len(attachments))
	}
	params["/tickets/"+tk.ID+"/attachments"] = attachments[0]
	params["/accounts"] = *ada.AccountID
	params["/fabric"] = e.partition(ada, "train", "us-east-1").ID
	params["/members"] = ada.ID
	params["/members/invitations"] = ada.ID // any id: the GET shows the Members page
	params["/account/passkeys"] = ada.ID    // any id: the GET shows the Passkeys section
	params["/account/sessions"] = "anyid"   // any id: the GET shows the Sessions section
	params["/members/sso"] = "example.com"  // any domain: the GET shows the Members page
	// Support pages are walked by support staff.
	e.user("help@example.com", models.RoleSupport)
	support := e.signedIn("help@example.com")
	walked := 0
	for _, r := range e.app.GetRoutes(true) {
		if r.Method != fiber.MethodPost || strings.HasPrefix(r.Path, "/api/") {
			continue
		}
		t.Run(r.Path, func(t *testing.T) {
			if !hasRoute(e.app, fiber.MethodGet, r.Path) {
				t.Fatalf("POST %s has no GET at the same address", r.Path)
			}
			if strings.HasPrefix(r.Path, "/setup/") || strings.HasPrefix(r.Path, "/reset-password/") ||
				strings.HasPrefix(r.Path, "/confirm-email/") || strings.HasPrefix(r.Path, "/cancel-email-change/") ||
				strings.HasPrefix(r.Path, web.InvitationPrefix) {
				return // one-time links: their tests open them
			}
			path, ok := params.path(r.Path)
			if !ok {
				t.Fatalf("no object to fill %s with: add one to the walk", r.Path)
			}
			viewer := b
			if strings.HasPrefix(r.Path, "/accounts") {
				viewer = support
			}
			res := viewer.get(path)
			// A form's address may lead to its page in a hop or two (a
			// second step's passkey form to the step, which sends a
			// signed-in browser home).
			for hops := 0; res.Status == http.StatusSeeOther && hops < 3; hops++ {
				loc := res.Header.Get("Location")
				u, err := url.Parse(loc)
				if err != nil || u.Host != "" {
					t.Fatalf("GET %s redirects off the site, to %q", path, loc)
				}
				res = viewer.get(loc)
			}
			if res.Status != http.StatusOK {
				t.Fatalf("GET %s answers %d, want the form's page", path, res.Status)
			}
			walked++
		})
	}
	if walked < 25 {
		t.Fatalf("walked %d posted addresses; the route table has more", walked)
	}
}

func hasRoute(app *fiber.App, method, pattern string) bool {
	for _, r := range app.GetRoutes(true) {
		if r.Method == method && r.Path == pattern {
			return true
		}
	}
	return false
}

// A refused change of password is shown in place; its address then
// answers GET with the account page (Back then Forward), and htmx puts the
// account page's address in the bar.
func TestRefusedPasswordChangeAddress(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	b := e.signedIn("ada@example.com")
	refused := url.Values{"current_password": {"wrong"}, "new_password": {"a new long passphrase"},
		"new_password_confirm": {"a new long passphrase"}}
	b.post("/account/password", refused).expect(http.StatusUnprocessableEntity).lacks("Password changed")
	b.get("/account/password").redirectsTo("/account")
	b.htmx = true
	b.post("/account/password", refused).expect(http.StatusUnprocessableEntity).hasHeader("HX-Replace-Url", "/account")
}

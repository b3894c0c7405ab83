package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"cloudplane/models"
)

// checked reports whether the page's notify checkbox for topic is ticked.
func checked(p *page, topic string) bool {
	p.t.Helper()
	re := regexp.MustCompile(`<input type="checkbox" name="notify" value="` + topic + `"( checked)?`)
	m := re.FindStringSubmatch(p.Body)
	if m == nil {
		p.t.Fatalf("no checkbox for %s:\n%s", topic, p.Body)
	}
	return m[1] != ""
}

// The account page's Notifications section: every topic of the user's
// role ticked by default; a post keeps the ticked ones and turns the rest
// off (for htmx too, which is sent back to the section); an unknown name
// is shown beside the checkboxes and changes nothing; a post without the
// CSRF token is refused. Support staff are offered their own topics.
func TestNotificationSettingsForm(t *testing.T) {
	e := newEnv(t)
	e.owner("ada@example.com")
	e.user("sam@support.example.com", models.RoleSupport)
	b := e.signedIn("ada@example.com")

	p := b.get("/account").expect(http.StatusOK).contains(`id="notifications"`, `action="/account/notifications"`,
		"Support replied to or solved my ticket").lacks("A new ticket of severity 1")
	for _, topic := range []string{"tickets", "webhooks", "api_keys", "account", "membership"} {
		if !checked(p, topic) {
			t.Errorf("%s is not on by default", topic)
		}
	}

	b.post("/account/notifications", url.Values{"notify": {"webhooks", "api_keys"}}).redirectsTo("/account#notifications")
	p = b.get("/account").expect(http.StatusOK).contains("Notification settings saved.")
	for topic, want := range map[string]bool{"tickets": false, "webhooks": true, "api_keys": true, "account": false, "membership": false} {
		if checked(p, topic) != want {
			t.Errorf("%s: ticked %v, want %v", topic, !want, want)
		}
	}

	b.htmx = true
	b.post("/account/notifications", url.Values{"notify": {"tickets"}}).redirectsTo("/account#notifications")
	b.htmx = false
	if p := b.get("/account"); !checked(p, "tickets") || checked(p, "webhooks") {
		t.Error("the htmx post did not save")
	}

	for _, bad := range []url.Values{{"notify": {"tickets", "bogus"}}, {"notify": {"sev1_tickets"}}} {
		p := b.post("/account/notifications", bad).expect(http.StatusUnprocessableEntity)
		p.fieldError("notify", `Unknown notification "`+bad["notify"][len(bad["notify"])-1]+`".`)
		p.hasHeader("HX-Replace-Url", "/account")
	}
	b.post("/account/notifications", url.Values{"notify": {"webhooks"}, "csrf_token": {""}}).expect(http.StatusForbidden)
	if p := b.get("/account"); !checked(p, "tickets") || checked(p, "webhooks") {
		t.Error("a refused post changed the settings")
	}
	b.get("/account/notifications").redirectsTo("/account") // post/redirect/get

	s := e.signedIn("sam@support.example.com")
	p = s.get("/account").expect(http.StatusOK).contains("A new ticket of severity 1", "A ticket was assigned to me").
		lacks("Support replied to or solved my ticket")
	s.post("/account/notifications", url.Values{"notify": {"tickets"}}).expect(http.StatusUnprocessableEntity)
	s.post("/account/notifications", url.Values{}).redirectsTo("/account#notifications")
	if p := s.get("/account"); checked(p, "sev1_tickets") || checked(p, "assignments") {
		t.Error("support's empty post left topics on")
	}
}

// Through the dashboard, over real SMTP: support's replies reach the
// ticket's author once their window ends, in one mail whose link opens
// the ticket; once the author unticks the topic, replies send nothing.
func TestTicketReplyNotificationThroughDashboard(t *testing.T) {
	e := newEnv(t)
	srv := e.mailbox()
	ada := e.owner("ada@example.com")
	e.user("sam@support.example.com", models.RoleSupport)
	tk, err := e.store.CreateTicket(context.Background(), ada.Actor(), models.CreateTicketInput{Subject: "Disk full",
		Description: "Help", Type: models.TicketServiceRequest})
	if err != nil {
		t.Fatal(err)
	}
	sam := e.signedIn("sam@support.example.com")
	for _, body := range []string{"Looking", "Resized it"} {
		sam.get("/tickets/" + tk.ID)
		sam.post("/tickets/"+tk.ID+"/comments", url.Values{"comment": {body}}).expect(http.StatusSeeOther)
	}
	e.clock.Advance(models.TicketReplyWindow)
	msg, _ := mailTo(t, srv, "ada@example.com", 1, "/tickets/")
	m := strings.NewReplacer("=\r\n", "", "=3D", "=").Replace(msg.Data)
	if !strings.Contains(m, "Support wrote 2 replies") {
		t.Errorf("mail:\n%s", m)
	}
	link := regexp.MustCompile(regexp.QuoteMeta(mailBase) + `(/tickets/[0-9a-f]{32})`).FindStringSubmatch(m)
	if link == nil || link[1] != "/tickets/"+tk.ID {
		t.Fatalf("link %v in:\n%s", link, m)
	}
	ada2 := e.signedIn("ada@example.com")
	ada2.get(link[1]).expect(http.StatusOK).contains("Disk full", "Resized it")

	ada2.get("/account")
	ada2.post("/account/notifications", url.Values{"notify": {"webhooks"}}).expect(http.StatusSeeOther)
	e.clock.Advance(models.TicketReplyWindow)
	sam.get("/tickets/" + tk.ID)
	sam.post("/tickets/"+tk.ID+"/comments", url.Values{"comment": {"Anything else?"}}).expect(http.StatusSeeOther)
	e.clock.Advance(models.TicketReplyWindow)
	log, err := e.store.MailLog(context.Background(), models.OperatorActor, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 {
		t.Fatalf("%d mails queued, want only the first", len(log))
	}
}

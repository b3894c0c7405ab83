package mail_test

import (
	"strings"
	"testing"

	"cloudplane/models"
	mailer "cloudplane/webhooks/mail"
)

// The new sign-in mail names the browser and system (parsed from the
// stored User-Agent, never the raw header), the address and the time, and
// links to the Sessions section in both parts.
func TestNewSignInMailRenders(t *testing.T) {
	out, err := mailer.Render(models.MailJob{Kind: models.MailNewSignIn, Recipient: "ada@example.com",
		Subject: "cloudplane: new sign-in to cloudplane", Data: map[string]string{
			"user_agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
			"source_ip":  "203.0.113.9", "time": "26 November 2026 19:00 UTC"}}, baseURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{out.Text, out.HTML} {
		for _, want := range []string{"New sign-in to cloudplane", "Firefox on Linux", "203.0.113.9",
			"26 November 2026 19:00 UTC", baseURL + "/account#sessions", "change your password"} {
			if !strings.Contains(part, want) {
				t.Errorf("part lacks %q:\n%s", want, part)
			}
		}
		if strings.Contains(part, "Gecko/20100101") {
			t.Errorf("part shows the raw User-Agent:\n%s", part)
		}
	}
	if _, err := mailer.Render(models.MailJob{Kind: models.MailNewSignIn, Recipient: "ada@example.com"}, baseURL); err == nil {
		t.Error("a new sign-in mail without its data (already sent) rendered")
	}
}

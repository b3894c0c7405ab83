package mail_test

import (
	"strings"
	"testing"

	"cloudplane/models"
	mailer "cloudplane/webhooks/mail"
)

// The factor-removed mail says what was removed, by whom and when, and
// links to the Sessions section in both parts.
func TestFactorRemovedMailRenders(t *testing.T) {
	out, err := mailer.Render(models.MailJob{Kind: models.MailFactorRemoved, Recipient: "ada@example.com",
		Subject: "cloudplane: a way to sign in was removed from your account", Data: map[string]string{
			"factor": models.RemovedPasskey, "name": "Laptop", "by": "the operator", "time": "26 November 2026 19:00 UTC"}}, baseURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{out.Text, out.HTML} {
		for _, want := range []string{"the operator removed passkey", "Laptop", "26 November 2026 19:00 UTC",
			baseURL + "/account#sessions", "change your password"} {
			if !strings.Contains(part, want) {
				t.Errorf("part lacks %q:\n%s", want, part)
			}
		}
	}
	if _, err := mailer.Render(models.MailJob{Kind: models.MailFactorRemoved, Recipient: "ada@example.com"}, baseURL); err == nil {
		t.Error("a factor-removed mail without its data (already sent) rendered")
	}
}

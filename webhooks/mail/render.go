package mail

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"

	"cloudplane/handlers/useragent"
	"cloudplane/models"
	mailview "cloudplane/views/mail"
)

// Render turns a claimed message into its parts, with links built from
// baseURL. An unknown kind, or data missing what its template needs, is a
// permanent failure.
func Render(job models.MailJob, baseURL string) (Outgoing, error) {
	base := strings.TrimSuffix(baseURL, "/")
	m, err := compose(job, base)
	if err != nil {
		return Outgoing{}, permanent(err)
	}
	m.Subject, m.HomeURL = job.Subject, base+"/"
	var html bytes.Buffer
	if err := mailview.Body(m).Render(context.Background(), &html); err != nil {
		return Outgoing{}, permanent(err)
	}
	return Outgoing{To: job.Recipient, Subject: job.Subject, Text: mailview.Text(m), HTML: html.String()}, nil
}

// compose writes each kind's message.
func compose(job models.MailJob, base string) (mailview.Message, error) {
	d := job.Data
	need := func(keys ...string) error {
		for _, k := range keys {
			if d[k] == "" {
				return fmt.Errorf("%s message without %s (already sent or given up?)", job.Kind, k)
			}
		}
		return nil
	}
	switch job.Kind {
	case models.MailPasswordReset:
		if err := need("token"); err != nil {
			return mailview.Message{}, err
		}
		return mailview.Message{
			Heading: "Reset your password",
			Lines: []string{"Someone, hopefully you, asked to reset the password of the " + mailview.Product +
				" account " + job.Recipient + ". The link below works once, for " + or(d["expires_in"], "1 hour") + "."},
			LinkLabel: "Choose a new password", LinkURL: base + "/reset-password/" + url.PathEscape(d["token"]),
			Reason: "You got this email because a password reset was requested for this address on the sign-in page.",
			Stop:   "If it was not you, ignore it: your password stays as it is. Using the link signs you out everywhere else.",
		}, nil
	case models.MailEmailChangeConfirm:
		if err := need("token", "old_email"); err != nil {
			return mailview.Message{}, err
		}
		return mailview.Message{
			Heading: "Confirm your new email address",
			Lines: []string{"The " + mailview.Product + " user " + d["old_email"] + " asked to use " + job.Recipient +
				" as their email from now on. The change happens only when you open the link below (it works once, for 24 hours)."},
			LinkLabel: "Confirm this address", LinkURL: base + "/confirm-email/" + url.PathEscape(d["token"]),
			Reason: "You got this email because this address was entered as a new email on " + mailview.Product + ".",
			Stop:   "If it was not you, ignore it: nothing changes and you will get no more mail about it.",
		}, nil
	case models.MailEmailChangeNotice:
		if err := need("new_email"); err != nil {
			return mailview.Message{}, err
		}
		m := mailview.Message{
			Heading: "Your email address is being changed",
			Lines: []string{"Someone signed in as " + job.Recipient + " asked to change this account's email to " +
				d["new_email"] + ". It changes once a link sent to that address is opened."},
			LinkLabel: "Open your account", LinkURL: base + "/account",
			Reason: "You got this email because it is the current address of a " + mailview.Product + " account.",
			Stop: "If this was you, there is nothing to do. If not, cancel the change with the link above " +
				"(it works once), then change your password (or use \"Forgot your password?\"): " +
				"a new password also ends any pending change.",
		}
		if d["cancel_token"] != "" {
			m.LinkLabel, m.LinkURL = "This was not me: cancel the change", base+"/cancel-email-change/"+url.PathEscape(d["cancel_token"])
		}
		return m, nil
	case models.MailInvitation:
		if err := need("token", "inviter", "account", "role"); err != nil {
			return mailview.Message{}, err
		}
		return mailview.Message{
			Heading: "You are invited to join an account",
			Lines: []string{d["inviter"] + " invited " + job.Recipient + " to join the " + mailview.Product +
				" account of " + d["account"] + " as " + d["role"] + ". The link below works once, for " +
				or(d["expires_in"], "7 days") + ": open it to choose a password, or sign in if you already use " +
				mailview.Product + " with this address."},
			LinkLabel: "Accept the invitation", LinkURL: base + "/invitations/" + url.PathEscape(d["token"]),
			Reason: "You got this email because an owner of that account entered this address on its Members page.",
			Stop:   "If you do not want to join, ignore it: nothing happens, the link expires, and you will get no more mail about it.",
		}, nil
	case models.MailNewSignIn:
		if err := need("time"); err != nil {
			return mailview.Message{}, err
		}
		return mailview.Message{
			Heading: "New sign-in to " + mailview.Product,
			Lines: []string{"Someone signed in to the " + mailview.Product + " account " + job.Recipient +
				" with its password from a browser it had not been used in before:",
				useragent.Describe(d["user_agent"]) + ", from the address " + or(d["source_ip"], "unknown") + ", at " + d["time"] + ".",
				"If this was you, there is nothing to do. If it wasn't you, sign out that session in the Sessions " +
					"section of your account page, and change your password."},
			LinkLabel: "Review your sessions", LinkURL: base + "/account#sessions",
			Reason: "You got this email because your account was signed in to from a new browser.",
			Stop:   "It is sent for every new browser and cannot be turned off: it is how you learn of a stolen password.",
		}, nil
	case models.MailFactorRemoved:
		if err := need("factor", "by", "time"); err != nil {
			return mailview.Message{}, err
		}
		what := d["factor"]
		if d["name"] != "" {
			what += " “" + d["name"] + "”"
		}
		return mailview.Message{
			Heading: "A way to sign in was removed",
			Lines: []string{"On " + d["time"] + ", " + d["by"] + " removed " + what + " from the " + mailview.Product +
				" account " + job.Recipient + ". Sign-ins started before it are no longer finished with it.",
				"If this was you, there is nothing to do. If it wasn't you, change your password, sign out the " +
					"sessions you do not know in the Sessions section of your account page, and set up your second factor again."},
			LinkLabel: "Review your account", LinkURL: base + "/account#sessions",
			Reason: "You got this email because a second factor or passkey was removed from your account.",
			Stop:   "It is sent for every removal and cannot be turned off: it is how you learn that someone weakened your sign-in.",
		}, nil
	}
	if m, ok, err := composeNotification(job, base); ok {
		return m, err
	}
	return mailview.Message{}, fmt.Errorf("unknown mail kind %q", job.Kind)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

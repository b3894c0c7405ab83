package mail

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"cloudplane/models"
	mailview "cloudplane/views/mail"
)

// composeNotification writes the notifications' messages (models'
// notification*.go queues them); ok is false for another kind. Each says
// which setting sent it and links to where it is turned off.
func composeNotification(job models.MailJob, base string) (m mailview.Message, ok bool, err error) {
	d := job.Data
	missing := func(keys ...string) error {
		for _, k := range keys {
			if d[k] == "" {
				return fmt.Errorf("%s message without %s (already sent or given up?)", job.Kind, k)
			}
		}
		return nil
	}
	ticket := func() string { return base + "/tickets/" + url.PathEscape(d["ticket_id"]) }
	switch job.Kind {
	case models.MailTicketReplied:
		n, _ := strconv.Atoi(d["count"])
		what := "a reply"
		if n > 1 {
			what = strconv.Itoa(n) + " replies"
		}
		m, err = mailview.Message{Heading: "Support replied to your ticket",
			Lines:     []string{"Support wrote " + what + " on your ticket \u201c" + d["subject"] + "\u201d."},
			LinkLabel: "Read the ticket", LinkURL: ticket()}, missing("ticket_id", "count")
	case models.MailTicketSolved:
		m, err = mailview.Message{Heading: "Support " + d["status"] + " your ticket",
			Lines: []string{"Support marked your ticket \u201c" + d["subject"] + "\u201d as " + d["status"] + "." +
				ifThen(d["status"] == models.TicketSolved, " If the problem is not gone, reply on the ticket to reopen it.")},
			LinkLabel: "Open the ticket", LinkURL: ticket()}, missing("ticket_id", "status")
	case models.MailWebhookFailing:
		m, err = mailview.Message{Heading: "A webhook endpoint is failing",
			Lines: []string{"Every delivery to your webhook endpoint at " + d["host"] + " has failed since " + d["since"] +
				". Events wait and are retried; an endpoint that fails for 5 days is disabled."},
			LinkLabel: "See the endpoint and its deliveries", LinkURL: base + "/webhook/" + url.PathEscape(d["endpoint_id"])},
			missing("endpoint_id", "since")
	case models.MailWebhookDisabled:
		m, err = mailview.Message{Heading: "A webhook endpoint was disabled",
			Lines: []string{"cloudplane disabled your webhook endpoint at " + d["host"] + ": " + d["reason"] + ".",
				"No events are sent to it until you enable it again; its failed deliveries can be redelivered."},
			LinkLabel: "Open the endpoint", LinkURL: base + "/webhook/" + url.PathEscape(d["endpoint_id"])},
			missing("endpoint_id", "reason")
	case models.MailAPIKeyExpiring:
		m, err = mailview.Message{Heading: "An API key expires soon",
			Lines: []string{"Your API key \u201c" + d["name"] + "\u201d (" + d["prefix"] + "\u2026) stops working at " +
				d["expires_at"] + ". Create a new key and move your scripts to it before then."},
			LinkLabel: "Manage API keys", LinkURL: base + "/api-keys"}, missing("key_id", "expires_at")
	case models.MailAccountChanged:
		m, err = mailview.Message{Heading: "Support changed your account",
			Lines:     append([]string{"Support changed these settings of your account:"}, accountChanges(d)...),
			LinkLabel: "Open your account", LinkURL: base + "/account"}, missing("account_id")
	case models.MailMembershipChanged:
		line := "You were added to a " + mailview.Product + " account as " + d["role"] + "."
		if d["what"] == models.MembershipRoleChanged {
			line = "Your role in a " + mailview.Product + " account is now " + d["role"] + "."
		}
		m, err = mailview.Message{Heading: "Your access to an account changed",
			Lines: []string{line + " (account " + d["account_id"] + ")"}, LinkLabel: "Open the dashboard", LinkURL: base + "/"},
			missing("account_id", "what", "role")
	case models.MailTicketSev1:
		m, err = mailview.Message{Heading: "New severity 1 ticket",
			Lines:     []string{"Account " + d["account_id"] + " opened a severity 1 incident: \u201c" + d["subject"] + "\u201d."},
			LinkLabel: "Open the ticket", LinkURL: ticket()}, missing("ticket_id")
	case models.MailTicketAssigned:
		m, err = mailview.Message{Heading: "A ticket was assigned to you",
			Lines:     []string{d["by"] + " assigned you the ticket \u201c" + d["subject"] + "\u201d."},
			LinkLabel: "Open the ticket", LinkURL: ticket()}, missing("ticket_id")
	case models.MailBudgetThreshold:
		m, err = budgetMessage(d, base), missing("account_id", "month", "kind", "threshold", "budget")
	default:
		return mailview.Message{}, false, nil
	}
	setting := topicLabel(job.Kind)
	m.Reason = "You got this email because \u201c" + setting + "\u201d is on in your " + mailview.Product + " notification settings."
	m.Stop = "To stop these emails, untick it at " + base + "/account#notifications."
	m.SettingsURL = base + "/account#notifications"
	return m, true, err
}

// topicLabel names the setting a kind belongs to, as the account page does.
func topicLabel(kind string) string {
	for _, t := range models.NotificationTopics {
		if slices.Contains(t.Kinds, kind) {
			return t.Label
		}
	}
	return kind
}

// accountChanges are the changes of an account_changed message, one line
// each, in a fixed order.
func accountChanges(d map[string]string) []string {
	labels := []struct{ key, label string }{{"status", "Status"}, {"billing_address_valid", "Billing address valid"},
		{"filesystem_quota", "Filesystem quota"}, {"ruleset_quota", "Firewall ruleset quota"},
		{"fabric_partition_quota", "Fabric partition quota"}}
	var out []string
	for _, l := range labels {
		if v, ok := d["change."+l.key]; ok {
			out = append(out, "\u2022 "+l.label+": "+strings.ReplaceAll(strings.ReplaceAll(v, "true", "yes"), "false", "no"))
		}
	}
	if d["reason"] != "" {
		out = append(out, "Why: "+d["reason"])
	}
	return out
}

func ifThen(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

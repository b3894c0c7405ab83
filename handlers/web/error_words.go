package web

import (
	"strings"

	"cloudplane/views"
)

// missingObject says, for a page under a list, what a missing object
// there may have become and where the list it would be in is.
type missingObject struct {
	prefix, text, list, listLabel string
}

// missingObjects are the dashboard's object pages, longest prefix first.
// The API's messages ("instance \"…\" does not exist") stay as the
// contract has them; a person reading a page gets these.
var missingObjects = []missingObject{
	{"/firewall/rulesets/", "This firewall ruleset doesn't exist or was deleted.", "/firewall/rulesets", "Firewall rulesets"},
	{"/webhook-deliveries/", "This webhook delivery doesn't exist, or is older than the log keeps.", "/webhook-deliveries", "Webhook deliveries"},
	{"/instances/", "This instance doesn't exist or was terminated.", "/instances", "Your instances"},
	{"/filesystems/", "This filesystem doesn't exist or was deleted.", "/filesystems", "Your filesystems"},
	{"/ssh-keys/", "This SSH key doesn't exist or was deleted.", "/ssh-keys", "Your SSH keys"},
	{"/api-keys/", "This API key doesn't exist or was revoked.", "/api-keys", "Your API keys"},
	{"/fabric/", "This fabric partition doesn't exist or was deleted.", "/fabric", "Your fabric partitions"},
	{"/tickets/", "This support ticket doesn't exist, or belongs to another account.", "/tickets", "Support tickets"},
	{"/webhook/", "This webhook doesn't exist or was deleted.", "/webhook", "Your webhooks"},
	{"/members/", "This member doesn't exist or was removed from the account.", "/members", "Members"},
	{"/accounts/", "This account doesn't exist.", "/accounts", "Accounts"},
}

// notFoundPage words a 404 for a person: which object is missing, what may
// have become of it, and the list it would be in, by the page's path.
// Another path keeps the domain's message.
func notFoundPage(v views.ErrorPage, path string) views.ErrorPage {
	for _, m := range missingObjects {
		if strings.HasPrefix(path, m.prefix) {
			v.Message = m.text
			v.Suggestion = "It may have been removed, or the link may be mistyped. Look for it in the list."
			v.Links = append(v.Links, views.ErrorLink{Href: m.list, Label: m.listLabel})
			return v
		}
	}
	return v
}

// fieldWords are the domain's field messages put in a customer's words:
// the API keeps its codes and values (sev_1), the page names what its
// controls show.
var fieldWords = map[string]func(msg string) string{
	"severity": func(msg string) string {
		if !strings.Contains(msg, "sev_1, sev_2 or sev_3") {
			return msg
		}
		choices := views.SeverityLabel("sev_1") + " (production down), " + views.SeverityLabel("sev_2") +
			" (degraded service) or " + views.SeverityLabel("sev_3") + " (minor problem or question)"
		if strings.HasPrefix(msg, "is required") {
			return "is required for incidents: choose " + choices
		}
		return "must be one of " + choices
	},
	"type": func(msg string) string {
		if !strings.Contains(msg, "incident or service_request") {
			return msg
		}
		choices := views.TicketTypeLabel("incident") + " or " + views.TicketTypeLabel("service_request")
		if strings.HasPrefix(msg, "is required") {
			return "is required: choose " + choices
		}
		return "must be " + choices
	},
}

// inCustomerWords is fields with each message in a customer's words.
func inCustomerWords(fields map[string]string) map[string]string {
	out := make(map[string]string, len(fields))
	for name, msg := range fields {
		if words, ok := fieldWords[name]; ok {
			msg = words(msg)
		}
		out[name] = customerText(msg)
	}
	return out
}

// operatorWords name whoever runs cloudplane as a customer knows them.
var operatorWords = strings.NewReplacer("Ask the operator", "Ask your administrator",
	"ask the operator", "ask your administrator", "or the operator", "or your administrator")

// customerText is a domain message or suggestion as a page shows it:
// "the operator" (the CLI's user, in the API's words) is the customer's
// administrator.
func customerText(s string) string { return operatorWords.Replace(s) }

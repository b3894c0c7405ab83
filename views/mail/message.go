// Package mail renders cloudplane's email: every message has an HTML part
// (the templ component Body) and a plain-text part (Text) made from the
// same Message, naming the product, carrying a link built from the
// server's base URL, and saying why the recipient got it and how to stop
// it.
package mail

import (
	"strings"
)

// Product is the name every message signs with.
const Product = "cloudplane"

// Message is one email's content, before it becomes parts.
type Message struct {
	Subject   string
	Heading   string
	Lines     []string // paragraphs, plain text
	LinkLabel string   // the call to action; no link when empty
	LinkURL   string
	Reason    string // why the recipient got this message
	Stop      string // how to stop getting it
	// SettingsURL, for notifications, is the page where the recipient
	// turns them off (/account#notifications).
	SettingsURL string
	HomeURL     string // the dashboard, from --base-url
}

// Text is the plain-text part.
func Text(m Message) string {
	var b strings.Builder
	b.WriteString(m.Heading + "\n\n")
	for _, l := range m.Lines {
		b.WriteString(l + "\n\n")
	}
	if m.LinkURL != "" {
		b.WriteString(m.LinkLabel + ":\n" + m.LinkURL + "\n\n")
	}
	b.WriteString("-- \n")
	b.WriteString(Product + " " + m.HomeURL + "\n")
	b.WriteString(m.Reason + "\n")
	b.WriteString(m.Stop + "\n")
	if m.SettingsURL != "" {
		b.WriteString("Notification settings: " + m.SettingsURL + "\n")
	}
	return b.String()
}

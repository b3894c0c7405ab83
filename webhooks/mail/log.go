package mail

import (
	"context"
	"log/slog"
)

// LogSender is the sender without an SMTP server: each message is written
// to the server's log, links included, for the operator to pass on. So
// the embedded default works with no mail server.
type LogSender struct{ Log *slog.Logger }

// Send logs o's recipient, subject and plain-text part.
func (l LogSender) Send(ctx context.Context, o Outgoing) error {
	l.Log.InfoContext(ctx, "mail (no --smtp-url: written to the log, not sent)",
		"to", o.To, "subject", o.Subject, "text", o.Text)
	return nil
}

// LogOnly tells the worker the message was not sent: the outbox keeps its
// link, until it expires, for support staff's mail log.
func (LogSender) LogOnly() bool { return true }

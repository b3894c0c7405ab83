package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"cloudplane/models"
	"cloudplane/webhooks/mail"
)

// mailFlags configure the mail worker.
type mailFlags struct {
	smtpURL, from string
	timeout       time.Duration
}

func (m *mailFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.smtpURL, "smtp-url", "", "send mail through this server: smtp://user:pass@host:587 (STARTTLS whenever "+
		"offered, required for credentials unless the host is loopback) or smtps://host:465; without it, mail is written to the log")
	fs.StringVar(&m.from, "mail-from", "cloudplane <noreply@localhost>", "sender of every mail, as \"Name <address>\"")
	fs.DurationVar(&m.timeout, "mail-timeout", mail.DefaultTimeout, "time the SMTP server has to take one message; "+
		"a message a stopped replica was sending is retried by another once its lease (about this times 11) ends")
}

// sender checks the flags and returns the mail sender: SMTP, or the log.
func (m *mailFlags) sender(log *slog.Logger) (mail.Sender, error) {
	if _, err := mail.ParseFrom(m.from); err != nil {
		return nil, err
	}
	if m.timeout <= 0 {
		return nil, fmt.Errorf("--mail-timeout must be positive")
	}
	if m.smtpURL == "" {
		return mail.LogSender{Log: log}, nil
	}
	s, err := mail.ParseSMTP(m.smtpURL, m.from)
	if err != nil {
		return nil, err
	}
	s.Timeout = m.timeout
	return s, nil
}

// startMail runs the mail worker, woken by every committed message, until
// the returned function stops it; a message being sent is finished and
// recorded first.
func startMail(store *models.Store, sender mail.Sender, timeout time.Duration, baseURL string, log *slog.Logger) (stop func()) {
	w := mail.New(mail.Config{Store: store, Sender: sender, Timeout: timeout, BaseURL: strings.TrimSuffix(baseURL, "/"), Log: log})
	store.OnMail(w.Wake)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = w.Run(ctx) }()
	_, logOnly := sender.(mail.LogSender)
	log.Info("mail worker started", "base_url", baseURL, "smtp", !logOnly)
	return func() {
		cancel()
		wg.Wait()
		log.Info("mail worker stopped")
	}
}

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
	retention     time.Duration
}

func (m *mailFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.smtpURL, "smtp-url", "", "send mail through this server: smtp://user:pass@host:587 (STARTTLS, required "+
		"unless the host is loopback or the URL ends ?tls=none) or smtps://host:465; without it, mail is written to the log")
	fs.DurationVar(&m.retention, "mail-retention", 30*24*time.Hour, "how long sent and failed mail stays in the outbox (and the mail log)")
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
	if m.retention < 24*time.Hour {
		return nil, fmt.Errorf("--mail-retention must be at least 24h (email changes are limited per day from the outbox)")
	}
	if m.smtpURL == "" {
		return mail.LogSender{Log: log}, nil
	}
	s, err := mail.ParseSMTP(m.smtpURL, m.from)
	if err != nil {
		return nil, err
	}
	if s.Insecure {
		log.Warn("--smtp-url has tls=none: mail, reset links included, may cross the network in clear")
	}
	s.Timeout = m.timeout
	return s, nil
}

// startMail runs the mail worker, woken by every committed message, and
// the outbox's hourly cleanup (expired links, retention) until the
// returned function stops them; a message being sent is finished (within
// half of shutdownTimeout) and recorded first.
func startMail(store *models.Store, sender mail.Sender, m mailFlags, shutdownTimeout time.Duration, baseURL string, log *slog.Logger) (stop func()) {
	w := mail.New(mail.Config{Store: store, Sender: sender, Timeout: m.timeout, BaseURL: strings.TrimSuffix(baseURL, "/"),
		Log: log, StopGrace: shutdownTimeout / 2})
	store.OnMail(w.Wake)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = w.Run(ctx) }()
	go func() { defer wg.Done(); cleanMail(ctx, store, m.retention, log) }()
	_, logOnly := sender.(mail.LogSender)
	log.Info("mail worker started", "base_url", baseURL, "smtp", !logOnly)
	return func() {
		cancel()
		wg.Wait()
		log.Info("mail worker stopped")
	}
}

// cleanMail fails pending messages whose links expired (clearing their
// tokens) and deletes sent and failed mail older than retention, at
// start and hourly, until ctx ends.
func cleanMail(ctx context.Context, store *models.Store, retention time.Duration, log *slog.Logger) {
	for {
		if _, err := store.ExpireMail(ctx); err != nil && ctx.Err() == nil {
			log.Warn("mail: expiring old links failed", "err", err)
		}
		if _, err := store.PruneMail(ctx, retention); err != nil && ctx.Err() == nil {
			log.Warn("mail: pruning the outbox failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Hour):
		}
	}
}

// stopTogether runs every stop function at once and waits for them all:
// the mail worker's in-flight send gets the shutdown's whole budget
// instead of what the other workers leave of it.
func stopTogether(stops ...func()) {
	var wg sync.WaitGroup
	for _, stop := range stops {
		wg.Add(1)
		go func() { defer wg.Done(); stop() }()
	}
	wg.Wait()
}

package models

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Prefixes that make a leaked credential recognisable.
const (
	WebhookTokenPrefix  = "cpwh_"
	WebhookSecretPrefix = "whsec_" // Standard Webhooks
)

// WebhookEndpoint is where an account's events are delivered: a URL, the
// bearer token sent with every delivery, and the Standard Webhooks signing
// secret. Token and secret are kept in clear because each delivery needs
// them; they are shown to the owner once and masked everywhere else.
type WebhookEndpoint struct {
	ID             string `gorm:"primaryKey;size:32"`
	AccountID      string `gorm:"size:32;not null;uniqueIndex"`
	URL            string `gorm:"size:2048;not null"`
	Token          string `gorm:"size:128;not null"`
	Secret         string `gorm:"size:128;not null"`
	Enabled        bool   `gorm:"not null"`
	DisabledReason string `gorm:"size:512;not null"` // set when the dispatcher disabled it
	DisabledAt     *time.Time
	CreatedAt      time.Time `gorm:"not null;autoCreateTime:false"`
	UpdatedAt      time.Time `gorm:"not null;autoUpdateTime:false"`
}

// TokenHint is the token as the dashboard may show it after creation.
func (e *WebhookEndpoint) TokenHint() string { return MaskToken(e.Token) }

// MaskToken keeps a token's first characters, enough to recognise it.
func MaskToken(token string) string {
	if len(token) <= 12 {
		return "****"
	}
	return token[:9] + "****"
}

func randomText(n int, enc *base64.Encoding) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return enc.EncodeToString(b)
}

func newWebhookToken() string { return WebhookTokenPrefix + randomText(32, base64.RawURLEncoding) }

func newWebhookSecret() string { return WebhookSecretPrefix + randomText(32, base64.StdEncoding) }

// SetWebhookInput configures the owner's webhook.
type SetWebhookInput struct {
	URL string `json:"url"`
	// Enabled nil enables a new endpoint and leaves an existing one as it is.
	Enabled *bool `json:"enabled"`
	// Token, when given, becomes the bearer token. Without it a new endpoint
	// gets a generated one and an existing one keeps its own, unless
	// RotateToken asks for a new one.
	Token       string `json:"token"`
	RotateToken bool   `json:"rotate_token"`
}

// Validate checks the URL (https, no credentials, no internal address in
// any spelling, unless allowPrivate) and a given token. It normalises the
// URL; a host written as a number is stored as the address it stands for.
func (in *SetWebhookInput) Validate(allowPrivate bool) error {
	var f FieldErrors
	normalized, problem := checkWebhookURL(in.URL, allowPrivate)
	if msg := textProblem(in.URL, false); msg != "" {
		problem = msg
	}
	if problem != "" {
		f.Add("url", problem)
	}
	in.URL = normalized
	in.Token = strings.TrimSpace(in.Token)
	if in.Token != "" && (len(in.Token) < 16 || len(in.Token) > 128 || strings.ContainsFunc(in.Token, notTokenChar)) {
		f.Add("token", "must be 16-128 printable ASCII characters without spaces")
	}
	return f.Err()
}

func notTokenChar(r rune) bool { return r <= ' ' || r > '~' }

var errNoWebhook = &Error{Code: CodeNotFound, Message: "No webhook is set for this account",
	Suggestion: "Set a webhook URL first"}

// Webhook returns an account's webhook endpoint: the owner's own, or for
// staff the one of accountID. CodeNotFound when none is set.
func (s *Store) Webhook(ctx context.Context, actor Actor, accountID string) (*WebhookEndpoint, error) {
	accountID, err := actor.scope(accountID)
	if err != nil {
		return nil, err
	}
	var e WebhookEndpoint
	err = s.read(ctx).Where("account_id = ?", accountID).Take(&e).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errNoWebhook
	}
	return &e, err
}

// SetWebhook creates or changes the owner's webhook endpoint and returns
// it with the bearer token when this call set one (shown once; "" when the
// token did not change). A new endpoint gets its signing secret. Disabling
// fails the deliveries still pending. One audit event records the change,
// never the token.
func (s *Store) SetWebhook(ctx context.Context, actor Actor, in SetWebhookInput) (*WebhookEndpoint, string, error) {
	if err := in.Validate(s.cfg.WebhookAllowPrivate); err != nil {
		return nil, "", err
	}
	if err := s.checkWebhookHost(ctx, in.URL); err != nil {
		return nil, "", err
	}
	var token string
	e, err := s.changeWebhook(ctx, actor, true, func(e *WebhookEndpoint, created bool) map[string]any {
		changes := map[string]any{}
		if e.URL != in.URL {
			changes["url"] = in.URL
			e.URL = in.URL
		}
		switch {
		case in.Token != "":
			token = in.Token
		case created || in.RotateToken:
			token = newWebhookToken()
		}
		if token != "" {
			e.Token = token
			changes["token_changed"] = true
		}
		if in.Enabled != nil && (created || *in.Enabled != e.Enabled) {
			e.Enabled = *in.Enabled
			changes["enabled"] = e.Enabled
		}
		return changes
	})
	return e, token, err
}

// RotateWebhookToken gives the owner's endpoint a new bearer token and
// returns it (shown once). CodeNotFound when no webhook is set.
func (s *Store) RotateWebhookToken(ctx context.Context, actor Actor) (string, error) {
	token := newWebhookToken()
	_, err := s.changeWebhook(ctx, actor, false, func(e *WebhookEndpoint, _ bool) map[string]any {
		e.Token = token
		return map[string]any{"token_changed": true}
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// SetWebhookEnabled switches the owner's endpoint on or off. Enabling
// clears the reason it was disabled; disabling fails pending deliveries.
func (s *Store) SetWebhookEnabled(ctx context.Context, actor Actor, enabled bool) (*WebhookEndpoint, error) {
	return s.changeWebhook(ctx, actor, false, func(e *WebhookEndpoint, _ bool) map[string]any {
		if e.Enabled == enabled {
			return nil
		}
		e.Enabled = enabled
		return map[string]any{"enabled": enabled}
	})
}

// changeWebhook runs change on the owner's endpoint (a new one when create
// is set and none exists) in one transaction, saves it with one audit event
// when change reports something changed, and applies the consequences of
// switching it off or on.
func (s *Store) changeWebhook(ctx context.Context, actor Actor, create bool,
	change func(e *WebhookEndpoint, created bool) map[string]any) (*WebhookEndpoint, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	var e WebhookEndpoint
	err = s.write(ctx, func(tx *gorm.DB) error {
		now := s.Now()
		err := tx.Clauses(forUpdate).Where("account_id = ?", accountID).Take(&e).Error
		created := errors.Is(err, gorm.ErrRecordNotFound)
		switch {
		case created && !create:
			return errNoWebhook
		case created:
			e = WebhookEndpoint{ID: NewID(), AccountID: accountID, Secret: newWebhookSecret(), Enabled: true, CreatedAt: now}
		case err != nil:
			return err
		}
		wasEnabled := e.Enabled && !created
		changes := change(&e, created)
		if len(changes) == 0 {
			return nil
		}
		e.UpdatedAt = now
		if e.Enabled {
			e.DisabledReason, e.DisabledAt = "", nil
		} else if wasEnabled {
			e.DisabledAt = &now
			if err := s.failPending(tx, e.ID, "the webhook was disabled"); err != nil {
				return err
			}
		}
		if err := tx.Save(&e).Error; err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "webhook", webhookAuditAction(created, changes), []string{lrn("webhook", e.ID)}, changes)
	})
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// disableEndpoint switches an endpoint off on the dispatcher's behalf
// (a 410 Gone answer), recording why for the owner, with an audit event.
func (s *Store) disableEndpoint(tx *gorm.DB, endpointID, reason string) error {
	now := s.Now()
	res := tx.Model(&WebhookEndpoint{}).Where("id = ? AND enabled = ?", endpointID, true).
		Updates(map[string]any{"enabled": false, "disabled_reason": reason, "disabled_at": now, "updated_at": now})
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	if err := s.failPending(tx, endpointID, "the webhook was disabled: "+reason); err != nil {
		return err
	}
	var accountID string
	if err := tx.Model(&WebhookEndpoint{}).Where("id = ?", endpointID).Pluck("account_id", &accountID).Error; err != nil {
		return err
	}
	return s.audit(tx, WebhooksActor, accountID, "webhook", WebhookDisabled, []string{lrn("webhook", endpointID)},
		map[string]any{"enabled": false, "reason": reason})
}

// failPending ends the pending deliveries of an endpoint that no longer
// takes them; the owner can redeliver them once it is enabled again.
func (s *Store) failPending(tx *gorm.DB, endpointID, why string) error {
	now := s.Now()
	return tx.Model(&WebhookDelivery{}).Where("endpoint_id = ? AND status = ?", endpointID, DeliveryPending).
		Updates(map[string]any{"status": DeliveryFailed, "last_error": why, "completed_at": now, "updated_at": now}).Error
}

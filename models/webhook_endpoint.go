package models

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Prefixes that make a leaked credential recognisable.
const (
	WebhookTokenPrefix  = "cpwh_"
	WebhookSecretPrefix = "whsec_" // Standard Webhooks
)

// MaxWebhookEndpoints is how many endpoints one account may have.
const MaxWebhookEndpoints = 10

// DefaultWebhookSecretGrace is how long a rotated-away signing secret keeps
// signing beside the new one, unless configured.
const DefaultWebhookSecretGrace = 24 * time.Hour

// TicketEventTypes are the event types an endpoint can subscribe to; a new
// endpoint receives all of them unless it chooses.
var TicketEventTypes = []string{EventTicketCreated, EventTicketStatusChanged, EventTicketResolved}

// SubscribableEventTypes are every event type an endpoint can choose to
// receive: the ticket events and billing.budget_threshold, which an
// endpoint receives only when it chooses it.
var SubscribableEventTypes = append(slices.Clone(TicketEventTypes), EventBillingBudgetThreshold)

// WebhookEndpoint is one place an account's events are delivered: a URL,
// the event types it receives, the bearer token sent with every delivery,
// and the Standard Webhooks signing secret. Token and secrets are kept in
// clear because each delivery needs them; the token is shown to the owner
// once, the secret again after they confirm their password.
type WebhookEndpoint struct {
	ID         string   `gorm:"primaryKey;size:32"`
	AccountID  string   `gorm:"size:32;not null;index"`
	URL        string   `gorm:"size:2048;not null"`
	EventTypes []string `gorm:"serializer:json;not null"`
	Token      string   `gorm:"size:128;not null"`
	Secret     string   `gorm:"size:128;not null"`
	// PreviousSecret signs beside Secret until PreviousSecretUntil, so a
	// receiver can move to the new secret without refusing events.
	PreviousSecret      string `gorm:"size:128;not null"`
	PreviousSecretUntil *time.Time
	Enabled             bool   `gorm:"not null"`
	DisabledReason      string `gorm:"size:512;not null"` // set when cloudplane disabled it
	DisabledAt          *time.Time
	// FailingSince is when the attempts to it began failing without a
	// success since; nil after a success.
	FailingSince *time.Time
	// Headers are added to every delivery (migration 0028).
	Headers   []WebhookHeader `gorm:"serializer:json;not null;default:'[]'"`
	CreatedAt time.Time       `gorm:"not null;autoCreateTime:false"`
	UpdatedAt time.Time       `gorm:"not null;autoUpdateTime:false"`
}

// TokenHint is the token as the dashboard may show it after creation.
func (e *WebhookEndpoint) TokenHint() string { return MaskToken(e.Token) }

// Rotating reports whether the previous signing secret still signs at now.
func (e *WebhookEndpoint) Rotating(now time.Time) bool {
	return e.PreviousSecret != "" && e.PreviousSecretUntil != nil && now.Before(*e.PreviousSecretUntil)
}

// Receives reports whether events of typ go to the endpoint.
func (e *WebhookEndpoint) Receives(typ string) bool { return slices.Contains(e.EventTypes, typ) }

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

// SetWebhookInput creates or configures an endpoint.
type SetWebhookInput struct {
	// EndpointID names the endpoint to change. SetWebhook without it
	// changes the account's first endpoint, creating it if there is none.
	EndpointID string `json:"-"`
	URL        string `json:"url"`
	// EventTypes the endpoint receives; nil gives a new endpoint every
	// ticket event and leaves an existing one's as they are.
	EventTypes []string `json:"event_types"`
	// Enabled nil enables a new endpoint and leaves an existing one as it is.
	Enabled *bool `json:"enabled"`
	// Token, when given, becomes the bearer token. Without it a new endpoint
	// gets a generated one and an existing one keeps its own, unless
	// RotateToken asks for a new one.
	Token       string `json:"token"`
	RotateToken bool   `json:"rotate_token"`
}

// Validate checks the URL with guard (https, no credentials, no internal
// address in any spelling, unless allowPrivate), the event types and a
// given token. It normalises the URL; a host written as a number is stored
// as the address it stands for.
func (in *SetWebhookInput) Validate(guard WebhookGuard, allowPrivate bool) error {
	var f FieldErrors
	normalized, problem := guard.CheckURL(in.URL, allowPrivate)
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
	if in.EventTypes != nil {
		types := []string{}
		for _, t := range SubscribableEventTypes { // known order, no repeats
			if slices.Contains(in.EventTypes, t) {
				types = append(types, t)
			}
		}
		for _, t := range in.EventTypes {
			if !slices.Contains(SubscribableEventTypes, t) {
				f.Add("event_types", fmt.Sprintf("unknown event type %q", Clip(t, 64)))
			}
		}
		if len(in.EventTypes) == 0 {
			f.Add("event_types", "choose at least one event type")
		}
		in.EventTypes = types
	}
	return f.Err()
}

func notTokenChar(r rune) bool { return r <= ' ' || r > '~' }

var errNoWebhook = &Error{Code: CodeNotFound, Message: "No webhook is set for this account",
	Suggestion: "Set a webhook URL first"}

// webhookEndpoints narrows to the endpoints accountID may see ("" for
// staff: every account's).
func webhookEndpoints(db *gorm.DB, accountID string) *gorm.DB {
	if accountID != "" {
		db = db.Where("account_id = ?", accountID)
	}
	return db
}

// WebhookEndpoints lists an account's endpoints, oldest first: the owner's
// own, or for staff those of accountID.
func (s *Store) WebhookEndpoints(ctx context.Context, actor Actor, accountID string) ([]WebhookEndpoint, error) {
	accountID, err := actor.scope(accountID)
	if err != nil {
		return nil, err
	}
	if accountID == "" {
		return nil, InvalidField("account_id", "is required for support staff")
	}
	var out []WebhookEndpoint
	err = s.read(ctx).Where("account_id = ?", accountID).Order("created_at, id").Find(&out).Error
	for i := range out {
		out[i].redactFor(actor)
	}
	return out, err
}

// redactFor blanks the endpoint's bearer token and signing secrets unless
// the actor manages webhooks (an owner, staff): members and viewers may
// read an endpoint's settings and health, never what authenticates its
// deliveries, whatever later serialises the struct.
func (e *WebhookEndpoint) redactFor(actor Actor) {
	if actor.managesWebhooks() != nil {
		e.Token, e.Secret, e.PreviousSecret = "", "", ""
	}
}

// Webhook returns an account's first endpoint: the owner's own, or for
// staff the one of accountID. CodeNotFound when none is set.
func (s *Store) Webhook(ctx context.Context, actor Actor, accountID string) (*WebhookEndpoint, error) {
	all, err := s.WebhookEndpoints(ctx, actor, accountID)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, errNoWebhook
	}
	return &all[0], nil
}

// WebhookEndpoint returns one endpoint by id: the owner's own, any for
// staff. Another account's, or an unknown id, is CodeNotFound.
func (s *Store) WebhookEndpoint(ctx context.Context, actor Actor, id string) (*WebhookEndpoint, error) {
	accountID, err := actor.scope("")
	if err != nil {
		return nil, err
	}
	if !IsID(id) {
		return nil, NotFound("webhook", id)
	}
	var e WebhookEndpoint
	err = webhookEndpoints(s.read(ctx), accountID).Where("id = ?", id).Take(&e).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("webhook", id)
	}
	e.redactFor(actor)
	return &e, err
}

// CreateWebhookEndpoint adds an endpoint to the owner's account and
// returns it with its bearer token (shown once; the secret can be shown
// again). CodeQuotaExceeded once the account has MaxWebhookEndpoints.
// A dashboard session needs a recent authentication (ErrReauthRequired).
// Recorded as "webhook created".
func (s *Store) CreateWebhookEndpoint(ctx context.Context, actor Actor, in SetWebhookInput) (*WebhookEndpoint, string, error) {
	in.EndpointID = ""
	return s.setWebhook(ctx, actor, in, true)
}

// SetWebhook changes the endpoint in.EndpointID names, or without one the
// account's first endpoint, created if there is none (the operator CLI).
// It returns the endpoint with the bearer token when this call set one
// (shown once; "" when the token did not change). Disabling fails the
// deliveries still pending. A dashboard session needs a recent
// authentication (ErrReauthRequired): the URL decides who receives the
// token. One audit event records the change, never the token.
func (s *Store) SetWebhook(ctx context.Context, actor Actor, in SetWebhookInput) (*WebhookEndpoint, string, error) {
	return s.setWebhook(ctx, actor, in, false)
}

func (s *Store) setWebhook(ctx context.Context, actor Actor, in SetWebhookInput, always bool) (*WebhookEndpoint, string, error) {
	// Before validation: whoever may not change webhooks learns nothing
	// of the URL (nor makes the server look its host up).
	if _, err := actor.manages(); err != nil {
		return nil, "", err
	}
	if err := in.Validate(s.webhookGuard, s.cfg.WebhookAllowPrivate); err != nil {
		return nil, "", err
	}
	if !s.cfg.WebhookAllowPrivate {
		if problem := s.webhookGuard.CheckHost(ctx, in.URL); problem != "" {
			return nil, "", InvalidField("url", problem)
		}
	}
	var token string
	target := endpointTarget{id: in.EndpointID, create: always, orCreate: in.EndpointID == "", sensitive: true}
	e, err := s.changeWebhook(ctx, actor, target, func(e *WebhookEndpoint, created bool) (string, map[string]any) {
		changes := map[string]any{}
		if e.URL != in.URL {
			changes["url"] = in.URL
			e.URL = in.URL
		}
		switch {
		case in.EventTypes != nil && (created || !slices.Equal(in.EventTypes, e.EventTypes)):
			e.EventTypes = in.EventTypes
			changes["event_types"] = in.EventTypes
		case created:
			e.EventTypes = slices.Clone(TicketEventTypes)
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
		return "updated", changes
	})
	return e, token, err
}

// RotateWebhookToken gives one of the owner's endpoints a new bearer token
// and returns it (shown once). A dashboard session needs a recent
// authentication (ErrReauthRequired). Recorded as "webhook token_rotated".
func (s *Store) RotateWebhookToken(ctx context.Context, actor Actor, id string) (string, error) {
	token := newWebhookToken()
	_, err := s.changeWebhook(ctx, actor, endpointTarget{id: id, sensitive: true}, func(e *WebhookEndpoint, _ bool) (string, map[string]any) {
		e.Token = token
		return "token_rotated", map[string]any{"token_changed": true}
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// RotateWebhookSecret gives one of the owner's endpoints a new signing
// secret. The one it replaces keeps signing beside it for the configured
// grace period (Config.WebhookSecretGrace), so each delivery carries both
// signatures until the receiver has moved; a secret rotated away earlier
// stops signing at once. A dashboard session needs a recent
// authentication (ErrReauthRequired). Recorded as "webhook secret_rotated".
func (s *Store) RotateWebhookSecret(ctx context.Context, actor Actor, id string) (*WebhookEndpoint, error) {
	grace := s.WebhookSecretGrace()
	return s.changeWebhook(ctx, actor, endpointTarget{id: id, sensitive: true}, func(e *WebhookEndpoint, _ bool) (string, map[string]any) {
		until := s.Now().Add(grace)
		e.PreviousSecret, e.PreviousSecretUntil, e.Secret = e.Secret, &until, newWebhookSecret()
		return "secret_rotated", map[string]any{"previous_secret_signs_until": until.Format(time.RFC3339)}
	})
}

// WebhookSecretGrace is how long a rotated-away signing secret keeps
// signing (Config.WebhookSecretGrace).
func (s *Store) WebhookSecretGrace() time.Duration {
	if s.cfg.WebhookSecretGrace > 0 {
		return s.cfg.WebhookSecretGrace
	}
	return DefaultWebhookSecretGrace
}

// RevealWebhookSecret returns one of the owner's endpoints with its signing
// secret when the acting session's user proved who they are within
// ReauthWindow (else ErrReauthRequired: ConfirmIdentity first).
// Recorded as "webhook secret_revealed".
func (s *Store) RevealWebhookSecret(ctx context.Context, actor Actor, id string) (*WebhookEndpoint, error) {
	if actor.UserID == "" {
		return nil, Errorf(CodeForbidden, "Only a signed-in user can reveal a signing secret")
	}
	if _, err := actor.manages(); err != nil {
		return nil, err
	}
	if _, err := s.WebhookEndpoint(ctx, actor, id); err != nil {
		return nil, err
	}
	if err := s.requireRecentAuth(s.read(ctx), actor); err != nil {
		return nil, err
	}
	var e WebhookEndpoint
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("id = ? AND account_id = ?", id, actor.AccountID).Take(&e).Error; err != nil {
			return err
		}
		return s.audit(tx, actor, e.AccountID, "webhook", "secret_revealed", []string{lrn("webhook", e.ID)}, nil)
	})
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("webhook", id)
	}
	return &e, err
}

// SetWebhookEnabled switches one of the owner's endpoints on or off,
// leaving the others as they are. Enabling clears the reason it was
// disabled; disabling fails its pending deliveries (they can be
// redelivered once it is on again). Recorded as "webhook enabled" or
// "webhook disabled".
func (s *Store) SetWebhookEnabled(ctx context.Context, actor Actor, id string, enabled bool) (*WebhookEndpoint, error) {
	return s.changeWebhook(ctx, actor, endpointTarget{id: id}, func(e *WebhookEndpoint, _ bool) (string, map[string]any) {
		if e.Enabled == enabled {
			return "", nil
		}
		e.Enabled = enabled
		if enabled {
			return "enabled", map[string]any{"enabled": true}
		}
		return "disabled", map[string]any{"enabled": false}
	})
}

// endpointTarget says which endpoint changeWebhook works on: id, or
// without one the account's first (orCreate) or a new one (create).
type endpointTarget struct {
	id       string
	create   bool // always a new endpoint
	orCreate bool // the first endpoint, new if there is none
	// sensitive: the change shows a token or secret or moves where the
	// token is sent, so a dashboard session needs a recent
	// authentication (ErrReauthRequired); API keys and the CLI pass.
	sensitive bool
}

// changeWebhook runs change on the owner's endpoint in one transaction,
// saves it with one audit event (the action change names, "created" for a
// new endpoint) when change reports something changed, and applies the
// consequences of switching it off or on. A new endpoint counts against
// MaxWebhookEndpoints under the account's row lock, so concurrent creates
// cannot overshoot it.
func (s *Store) changeWebhook(ctx context.Context, actor Actor, target endpointTarget,
	change func(e *WebhookEndpoint, created bool) (string, map[string]any)) (*WebhookEndpoint, error) {
	accountID, err := actor.manages()
	if err != nil {
		return nil, err
	}
	if target.id != "" && !IsID(target.id) {
		return nil, NotFound("webhook", target.id)
	}
	var e WebhookEndpoint
	err = s.write(ctx, func(tx *gorm.DB) error {
		if target.sensitive {
			if err := s.requireRecentAuth(tx, actor); err != nil {
				return err
			}
		}
		now := s.Now()
		created, err := s.lockEndpoint(tx, accountID, target, &e)
		if err != nil {
			return err
		}
		if created {
			e = WebhookEndpoint{ID: NewID(), AccountID: accountID, Secret: newWebhookSecret(), Enabled: true, CreatedAt: now,
				Headers: []WebhookHeader{}}
		}
		wasEnabled := e.Enabled && !created
		action, changes := change(&e, created)
		if len(changes) == 0 {
			return nil
		}
		e.UpdatedAt = now
		if e.Enabled {
			e.DisabledReason, e.DisabledAt = "", nil
			if !wasEnabled {
				e.FailingSince = nil // its run of failures starts afresh
			}
		} else if wasEnabled {
			e.DisabledAt = &now
			if err := s.failPending(tx, e.ID, "the webhook was disabled"); err != nil {
				return err
			}
		}
		if err := tx.Save(&e).Error; err != nil {
			return err
		}
		if created {
			action = WebhookCreated
			changes["event_types"] = e.EventTypes
		}
		return s.audit(tx, actor, accountID, "webhook", action, []string{lrn("webhook", e.ID)}, changes)
	})
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// lockEndpoint loads target into e under a row lock, or reports that a new
// endpoint is to be created, after checking the account's quota.
func (s *Store) lockEndpoint(tx *gorm.DB, accountID string, target endpointTarget, e *WebhookEndpoint) (bool, error) {
	if !target.create {
		q := tx.Clauses(forUpdate).Where("account_id = ?", accountID)
		if target.id != "" {
			q = q.Where("id = ?", target.id)
		}
		err := q.Order("created_at, id").Limit(1).Take(e).Error
		switch {
		case err == nil:
			return false, nil
		case !errors.Is(err, gorm.ErrRecordNotFound):
			return false, err
		case target.id != "":
			return false, NotFound("webhook", target.id)
		case !target.orCreate:
			return false, errNoWebhook
		}
	}
	_, used, err := lockAccountCounting(tx, accountID, "webhook_endpoints")
	if err != nil {
		return false, err
	}
	if used > 0 && target.orCreate && !target.create {
		// Another transaction created the first endpoint meanwhile.
		return false, tx.Clauses(forUpdate).Where("account_id = ?", accountID).Order("created_at, id").Limit(1).Take(e).Error
	}
	return true, checkQuota(used, MaxWebhookEndpoints, "webhook endpoints")
}

// DeleteWebhookEndpoint removes one of the owner's endpoints with its
// delivery log. Its pending deliveries are dropped, not sent: they belong
// to an address the owner no longer wants to receive anything at (to keep
// them, disable the endpoint instead). The other endpoints are untouched.
// Recorded as "webhook deleted".
func (s *Store) DeleteWebhookEndpoint(ctx context.Context, actor Actor, id string) (*WebhookEndpoint, error) {
	accountID, err := actor.manages()
	if err != nil {
		return nil, err
	}
	if !IsID(id) {
		return nil, NotFound("webhook", id)
	}
	var e WebhookEndpoint
	err = s.write(ctx, func(tx *gorm.DB) error {
		err := tx.Clauses(forUpdate).Where("id = ? AND account_id = ?", id, accountID).Take(&e).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return NotFound("webhook", id)
		} else if err != nil {
			return err
		}
		if err := tx.Where("endpoint_id = ?", id).Delete(&WebhookAttempt{}).Error; err != nil {
			return err
		}
		if err := tx.Where("endpoint_id = ?", id).Delete(&WebhookDelivery{}).Error; err != nil {
			return err
		}
		if err := tx.Delete(&e).Error; err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "webhook", "deleted", []string{lrn("webhook", e.ID)}, map[string]any{"url": e.URL})
	})
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// disableEndpoint switches an endpoint off on the dispatcher's behalf
// (a 410 Gone answer, or days of failures), recording why for the owner,
// with a "webhook disabled" audit event.
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
	if err := s.notifyEndpointDisabled(tx, endpointID, reason); err != nil {
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

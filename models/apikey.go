package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// APIKeyPrefix starts every secret, so secret scanners can recognise a
// leaked cloudplane key.
const APIKeyPrefix = "cpk_"

// APIKey lets a script act as the user who created it. Only the SHA-256
// of the secret is stored; the secret is shown once.
type APIKey struct {
	ID         string `gorm:"primaryKey;size:32;index:idx_api_keys_account_ids,priority:2"`
	AccountID  string `gorm:"size:32;not null;index;index:idx_api_keys_search,priority:1;index:idx_api_keys_account_ids,priority:1"`
	UserID     string `gorm:"size:32;not null"`
	Name       string `gorm:"size:64;not null;index:idx_api_keys_search,expression:lower(name),priority:2"`
	Prefix     string `gorm:"size:16;not null;uniqueIndex"`
	Hash       string `gorm:"size:64;not null;uniqueIndex"`
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	// Scope is ScopeFull or ScopeReadOnly (GET and HEAD only).
	Scope string `gorm:"size:16;not null;default:'full'"`
	// ExpiresAt, when set, is when the key stops working, as if revoked.
	ExpiresAt *time.Time
}

// Scopes of API keys.
const (
	ScopeFull     = "full"
	ScopeReadOnly = "read_only"
)

// CreateAPIKeyInput names a new key, with its scope and expiry.
type CreateAPIKeyInput struct {
	Name string `json:"name"`
	// ReadOnly keys may only read (GET and HEAD); the default may do
	// anything its user may.
	ReadOnly bool `json:"read_only"`
	// Expires is when the key stops working: "" or "never", a number of
	// days such as "90d", or a date ("2027-01-31": the key works through
	// that day, UTC) or an RFC 3339 time.
	Expires string `json:"expires"`
}

// Validate checks the name and the expiry, which must be in the future
// of now, and returns when the key expires (nil: never). An empty name
// is given a default later.
func (in *CreateAPIKeyInput) Validate(now time.Time) (*time.Time, error) {
	in.Name = strings.TrimSpace(in.Name)
	var f FieldErrors
	if checkLine(&f, "name", in.Name) && utf8.RuneCountInString(in.Name) > 64 {
		f.Add("name", "must be at most 64 characters")
	}
	expires, err := ParseKeyExpiry(in.Expires, now)
	if err != nil {
		f.Add("expires", err.Error())
	}
	return expires, f.Err()
}

// ParseKeyExpiry reads a key's expiry as CreateAPIKeyInput.Expires
// describes it, relative to now. It must be in the future.
func ParseKeyExpiry(s string, now time.Time) (*time.Time, error) {
	s = strings.TrimSpace(s)
	var at time.Time
	switch {
	case s == "" || s == "never":
		return nil, nil
	case strings.HasSuffix(s, "d"):
		days, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
		if err != nil || days < 1 || days > maxKeyDays {
			return nil, fmt.Errorf("must be a number of days from 1 to %d, such as 90d", maxKeyDays)
		}
		at = now.AddDate(0, 0, days)
	default:
		var err error
		if at, err = time.Parse(time.DateOnly, s); err == nil {
			at = at.AddDate(0, 0, 1) // through that day
		} else if at, err = time.Parse(time.RFC3339, s); err != nil {
			return nil, errors.New("must be never, a number of days such as 90d, or a date such as 2027-01-31")
		}
	}
	if !at.After(now) {
		return nil, errors.New("must be in the future")
	}
	at = dbTime(at)
	return &at, nil
}

// maxKeyDays bounds an expiry given in days (ten years).
const maxKeyDays = 3650

// Expired reports whether the key has expired at now.
func (k *APIKey) Expired(now time.Time) bool {
	return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)
}

// newSecret returns a key secret: the prefix, 8 hex characters that are
// the key's visible prefix, and 256 random bits in hex.
func newSecret() (secret, visible string) {
	var b [36]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	visible = APIKeyPrefix + h[:8]
	return visible + "_" + h[8:], visible
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateAPIKey makes a key of the actor in their account and returns it
// with the secret, which is never stored and cannot be shown again. Any
// member may; a viewer only a read-only one (else CodeInsufficientScope).
// The key acts with its member's role at each request.
func (s *Store) CreateAPIKey(ctx context.Context, actor Actor, in CreateAPIKeyInput) (*APIKey, string, error) {
	var expires *time.Time
	validate := func() (err error) { expires, err = in.Validate(s.Now()); return err }
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, "", err
	}
	if actor.Role == RoleViewer && !in.ReadOnly {
		return nil, "", &Error{Code: CodeInsufficientScope,
			Message:    "A viewer may create only read-only API keys",
			Suggestion: "Ask for a read-only key (read_only: true), or ask an owner to make you a member"}
	}
	var secret string
	k, err := createIn(ctx, s, actor, accountID, validate, func(accountID, id string) (*APIKey, accountCreate, error) {
		var visible string
		secret, visible = newSecret()
		if in.Name == "" {
			in.Name = "key " + visible
		}
		scope := ScopeFull
		if in.ReadOnly {
			scope = ScopeReadOnly
		}
		k := &APIKey{ID: id, AccountID: accountID, UserID: actor.UserID, Name: in.Name,
			Prefix: visible, Hash: hashSecret(secret), CreatedAt: s.Now(), Scope: scope, ExpiresAt: expires}
		return k, accountCreate{resource: "api_key",
			details: map[string]any{"name": k.Name, "prefix": k.Prefix, "scope": k.Scope, "expires_at": k.ExpiresAt}}, nil
	})
	if err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// APIKeys lists the keys of the actor's account that are not revoked,
// newest first: an owner's list has every member's keys, anyone else's
// their own. Expired keys are listed (and refused by Authenticate) until
// revoked.
func (s *Store) APIKeys(ctx context.Context, actor Actor) ([]APIKey, error) {
	keys, err := s.MemberAPIKeys(ctx, actor)
	if err != nil {
		return nil, err
	}
	out := make([]APIKey, len(keys))
	for i, k := range keys {
		out[i] = k.APIKey
	}
	return out, nil
}

// MemberAPIKey is a key with the email of the member it belongs to.
type MemberAPIKey struct {
	APIKey
	Email string
}

// MemberAPIKeys is APIKeys with whose each key is, for the keys page.
func (s *Store) MemberAPIKeys(ctx context.Context, actor Actor) ([]MemberAPIKey, error) {
	q, err := visibleKeys(s.read(ctx), actor)
	if err != nil {
		return nil, err
	}
	var keys []MemberAPIKey
	err = q.Select("api_keys.*, users.email").Joins("JOIN users ON users.id = api_keys.user_id").
		Order("api_keys.created_at DESC, api_keys.id").Scan(&keys).Error
	return keys, err
}

// visibleKeys limits a query of api_keys to the unrevoked keys the actor
// sees and may revoke: an owner every key of the account, anyone else
// their own.
func visibleKeys(db *gorm.DB, actor Actor) (*gorm.DB, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	q := db.Table("api_keys").Where("api_keys.account_id = ? AND api_keys.revoked_at IS NULL", accountID)
	if actor.Role != RoleOwner {
		q = q.Where("api_keys.user_id = ?", actor.UserID)
	}
	return q, nil
}

// APIKey returns a key the actor sees (APIKeys) that is not revoked, by
// id. Other keys are not found.
func (s *Store) APIKey(ctx context.Context, actor Actor, id string) (*APIKey, error) {
	q, err := visibleKeys(s.read(ctx), actor)
	if err != nil {
		return nil, err
	}
	var k APIKey
	err = q.Where("api_keys.id = ?", id).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("API key", id)
	}
	return &k, err
}

// RevokeAPIKey revokes a key by id or visible prefix: an owner any key of
// the account, anyone else their own (others' are not found). It stops working at once in this process, and within
// credentialsCheckInterval in every other process on the same database.
func (s *Store) RevokeAPIKey(ctx context.Context, actor Actor, idOrPrefix string) (*APIKey, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	var k APIKey
	err = s.write(ctx, func(tx *gorm.DB) error {
		q, err := visibleKeys(tx, actor)
		if err != nil {
			return err
		}
		err = q.Where("api_keys.id = ? OR api_keys.prefix = ?", idOrPrefix, idOrPrefix).Take(&k).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return NotFound("API key", idOrPrefix)
		} else if err != nil {
			return err
		}
		now := s.Now()
		k.RevokedAt = &now
		if err := tx.Model(&k).Update("revoked_at", now).Error; err != nil {
			return err
		}
		if err := bumpCredentials(tx); err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "api_key", "deleted", []string{lrn("api_key", k.ID)},
			map[string]any{"name": k.Name, "prefix": k.Prefix})
	})
	if err != nil {
		return nil, err
	}
	s.keys.forgetKey(k.Hash)
	return &k, nil
}

// Authenticate resolves an API key secret to the actor it stands for. It
// answers from an in-memory cache on the hot path and refreshes it from the
// database at most every keyCacheTTL. It fails with CodeInvalidAPIKey for
// unknown or revoked keys and CodeAccountInactive for inactive accounts.
func (s *Store) Authenticate(ctx context.Context, secret string) (Actor, error) {
	if !strings.HasPrefix(secret, APIKeyPrefix) || len(secret) > 128 {
		return Actor{}, errInvalidKey
	}
	hash := hashSecret(secret)
	if err := s.syncKeyCache(ctx); err != nil {
		return Actor{}, err
	}
	p, ok := s.keys.get(hash)
	if !ok {
		version := s.keys.currentVersion()
		var err error
		if p, err = s.loadPrincipal(ctx, hash); err != nil {
			return Actor{}, err
		}
		s.keys.put(hash, p, version)
	}
	if subtle.ConstantTimeCompare([]byte(p.hash), []byte(hash)) != 1 {
		return Actor{}, errInvalidKey
	}
	// Checked on every request against this process's clock, not cached:
	// a key expires at the same moment on every replica.
	if p.expiresAt != nil && !s.Now().Before(*p.expiresAt) {
		return Actor{}, errInvalidKey
	}
	if !p.accountActive {
		return Actor{}, errAccountInactive
	}
	if s.keys.shouldTouch(hash) {
		go s.touchAPIKey(p.actor.APIKeyID)
	}
	return p.actor, nil
}

var errAccountInactive = &Error{Code: CodeAccountInactive, Message: "The account of this API key is inactive",
	Suggestion: "Contact support to reactivate the account"}

var errInvalidKey = &Error{Code: CodeInvalidAPIKey, Message: "The API key is missing, malformed, unknown, expired or revoked",
	Suggestion: "Pass a valid key as 'Authorization: Bearer <key>'"}

func (s *Store) loadPrincipal(ctx context.Context, hash string) (principal, error) {
	var row struct {
		APIKey
		Email         string
		Role          string
		AccountStatus string
	}
	// The role is the member's in the key's account now; a key whose
	// user is no longer a member is unknown (their keys were revoked).
	err := s.read(ctx).Table("api_keys").
		Select("api_keys.*, users.email, memberships.role, accounts.status AS account_status").
		Joins("JOIN users ON users.id = api_keys.user_id").
		Joins("JOIN memberships ON memberships.account_id = api_keys.account_id AND memberships.user_id = api_keys.user_id").
		Joins("JOIN accounts ON accounts.id = api_keys.account_id").
		Where("api_keys.hash = ? AND api_keys.revoked_at IS NULL AND users.status = ?", hash, UserActive).
		Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return principal{}, errInvalidKey
	} else if err != nil {
		return principal{}, err
	}
	return principal{
		hash: hash,
		actor: Actor{UserID: row.UserID, Email: row.Email, Role: row.Role,
			AccountID: row.AccountID, APIKeyID: row.ID, ReadOnly: row.Scope == ScopeReadOnly},
		accountActive: row.AccountStatus == AccountActive,
		expiresAt:     row.ExpiresAt,
	}, nil
}

// touchAPIKey records that a key was used. It runs off the request path
// and at most once per key per touchInterval, so authentication costs no
// write.
func (s *Store) touchAPIKey(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.write(ctx, func(tx *gorm.DB) error {
		return tx.Model(&APIKey{}).Where("id = ?", id).Update("last_used_at", s.Now()).Error
	})
}

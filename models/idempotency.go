package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// IdempotencyKey is a write request's Idempotency-Key, claimed by the
// first request that carries it and holding that request's answer for
// IdempotencyTTL, so that a retry is answered the same without running
// again.
type IdempotencyKey struct {
	AccountID   string `gorm:"primaryKey;size:32"`
	Key         string `gorm:"primaryKey;size:255"`
	Fingerprint string `gorm:"size:64;not null"`
	// LeaseToken names the claim of the request running it; LockedUntil
	// is when that claim goes stale (its process presumably died). Both
	// are cleared once the answer is stored.
	LeaseToken  string `gorm:"size:32;not null"`
	LockedUntil *time.Time
	// StatusCode is 0 while the first request runs.
	StatusCode      int               `gorm:"not null"`
	ResponseHeaders map[string]string `gorm:"serializer:json;not null"`
	ResponseBody    []byte
	CreatedAt       time.Time `gorm:"not null;autoCreateTime:false"`
	ExpiresAt       time.Time `gorm:"not null;index"`
}

// IdempotencyTTL is how long a stored answer is replayed.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyClaim is the outcome of claiming a key: either the caller
// owns it and runs the request (Token names its claim), or Replay is the
// first request's stored answer.
type IdempotencyClaim struct {
	Token  string
	Replay *IdempotencyKey
}

// ClaimIdempotencyKey claims key for one request of the account, whose
// fingerprint names its method, path and body. The insert is arbitrated
// by the primary key, so of concurrent requests (on any replica) exactly
// one owns the key; a claim older than lease is stale (its process died)
// and is taken over, and an expired row is claimed afresh.
//
// It fails with CodeInvalidParameters when the key was used for another
// request, and with a retryable CodeInternal (409) while the first
// request still runs.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, accountID, key, fingerprint string, lease time.Duration) (IdempotencyClaim, error) {
	var claim IdempotencyClaim
	err := s.write(ctx, func(tx *gorm.DB) error {
		now := s.Now()
		mine := IdempotencyKey{AccountID: accountID, Key: key, Fingerprint: fingerprint, LeaseToken: randomHex(16),
			LockedUntil: ptrTo(now.Add(lease)), ResponseHeaders: map[string]string{}, CreatedAt: now, ExpiresAt: now.Add(IdempotencyTTL)}
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&mine)
		if res.Error != nil || res.RowsAffected == 1 {
			claim.Token = mine.LeaseToken
			return res.Error
		}
		var held IdempotencyKey
		err := tx.Where("account_id = ? AND key = ?", accountID, key).Take(&held).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return errIdempotencyKeyBusy // pruned between the two statements
		} else if err != nil {
			return err
		}
		expired := !held.ExpiresAt.After(now)
		switch {
		case !expired && held.Fingerprint != fingerprint:
			return errIdempotencyKeyReused
		case !expired && held.StatusCode != 0:
			claim.Replay = &held
			return nil
		case !expired && held.LockedUntil != nil && held.LockedUntil.After(now):
			return errIdempotencyKeyBusy
		}
		// Expired, or a stale claim: take it over, unless another request
		// just did (the lease token it saw is gone then).
		res = tx.Model(&IdempotencyKey{}).
			Where("account_id = ? AND key = ? AND lease_token = ? AND status_code = ? AND expires_at = ?",
				accountID, key, held.LeaseToken, held.StatusCode, held.ExpiresAt).
			Select("*").Updates(&mine)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errIdempotencyKeyBusy
		}
		claim.Token = mine.LeaseToken
		return nil
	})
	return claim, err
}

func ptrTo[T any](v T) *T { return &v }

// IdempotencyRowKey is the key a client's Idempotency-Key is claimed and
// stored under: a SHA-256 of the credential that sent it (the API key, or
// the user of a session) and the key. Members of one account share its
// rows' account_id, so without the credential one member's retry would
// replay another member's answer, skipping the role check and showing
// what the answer held. The hash keeps the row key within 255 characters
// whatever the client's key.
func IdempotencyRowKey(a Actor, key string) string {
	credential := "user:" + a.UserID
	if a.APIKeyID != "" {
		credential = "api-key:" + a.APIKeyID
	}
	sum := sha256.Sum256([]byte(credential + "\n" + key))
	return hex.EncodeToString(sum[:])
}

var errIdempotencyKeyReused = &Error{Code: CodeInvalidParameters,
	Message:    "Invalid Idempotency-Key: it was used for another request (a different method, path or body, or under another role) in the last 24 hours",
	Suggestion: "Use a new key for each distinct request; repeat a key only to retry the same request"}

var errIdempotencyKeyBusy = &Error{Code: CodeInternal, Retryable: true,
	Message:    "A request with this Idempotency-Key is still running",
	Suggestion: "Retry in a moment: you will get its answer once it has finished"}

// StoreIdempotentAnswer stores the answer of the request holding the claim
// token, to be replayed to retries until the key expires. A claim taken
// over meanwhile (this one went stale) stores nothing.
func (s *Store) StoreIdempotentAnswer(ctx context.Context, accountID, key, token string, status int, headers map[string]string, body []byte) error {
	return s.write(ctx, func(tx *gorm.DB) error {
		return tx.Model(&IdempotencyKey{}).Where("account_id = ? AND key = ? AND lease_token = ?", accountID, key, token).
			Select("status_code", "response_headers", "response_body", "lease_token", "locked_until").
			Updates(&IdempotencyKey{StatusCode: status, ResponseHeaders: headers, ResponseBody: body}).Error
	})
}

// ReleaseIdempotencyKey gives up the claim token holds without storing an
// answer (one a retry may change: 5xx, 409, 429), so the key is free for
// the client's retry at once.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, accountID, key, token string) error {
	return s.write(ctx, func(tx *gorm.DB) error {
		return tx.Where("account_id = ? AND key = ? AND lease_token = ? AND status_code = 0", accountID, key, token).
			Delete(&IdempotencyKey{}).Error
	})
}

// PruneIdempotencyKeys deletes the keys that have expired and returns how
// many.
func (s *Store) PruneIdempotencyKeys(ctx context.Context) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *gorm.DB) error {
		res := tx.Where("expires_at <= ?", s.Now()).Delete(&IdempotencyKey{})
		n = res.RowsAffected
		return res.Error
	})
	return n, err
}

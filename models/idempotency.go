package models

import "time"

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

package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Time-based notifications, queued by SweepNotifications.
const (
	// WebhookFailingNotice is how long every attempt to an endpoint must
	// have failed before its account is told; then at most once a day
	// (UTC) per endpoint and recipient while it keeps failing.
	WebhookFailingNotice = time.Hour
	// APIKeyExpiryNotice is how long before a key expires its holder is
	// told, once per key and expiry.
	APIKeyExpiryNotice = 7 * 24 * time.Hour
	// NotificationRetention is how long a queued notification's record is
	// kept: longer than any period it deduplicates.
	NotificationRetention = 30 * 24 * time.Hour
)

// defaultSweepLimit bounds the endpoints, keys or old records one
// transaction of a sweep handles (Store.sweepLimit; tests lower it); the
// sweep goes on, page by page, until none is left.
const defaultSweepLimit = 1000

// SweepNotifications queues the notifications that time, not a change,
// brings: endpoints failing for WebhookFailingNotice, API keys expiring
// within APIKeyExpiryNotice. Each is idempotent (its user, kind, subject
// and period are unique), so any number of replicas may sweep at once and
// one mail is queued. It also forgets records older than
// NotificationRetention. It returns how many mails it queued; it is the
// server's background job, not a user's operation.
func (s *Store) SweepNotifications(ctx context.Context) (int, error) {
	queued := 0
	for _, sweep := range []sweepPage{s.sweepFailingEndpoints, s.sweepExpiringKeys} {
		for after := ""; ; {
			var n int
			var last string
			err := s.write(ctx, func(tx *gorm.DB) (err error) {
				n, last, err = sweep(tx, after)
				return err
			})
			if err != nil {
				return queued, translate(err)
			}
			queued += n
			if last == "" {
				break
			}
			after = last
		}
	}
	if queued > 0 {
		s.wakeMail()
	}
	return queued, translate(s.pruneNotifications(ctx))
}

// sweepPage handles the subjects after the id after, at most s.sweepLimit
// of them, in tx. It returns the mails it queued, and the last id when the
// page was full (more may follow), else "".
type sweepPage func(tx *gorm.DB, after string) (queued int, last string, err error)

// fullPage is the last id of a page of n rows that filled a page.
func (s *Store) fullPage(n int, lastID string) string {
	if n < s.sweepLimit {
		return ""
	}
	return lastID
}

// sweepFailingEndpoints tells the accounts of enabled endpoints that have
// failed for WebhookFailingNotice, once per endpoint, recipient and day.
func (s *Store) sweepFailingEndpoints(tx *gorm.DB, after string) (int, string, error) {
	now := s.Now()
	today := now.UTC().Format(time.DateOnly)
	var endpoints []WebhookEndpoint
	told := tx.Model(&Notification{}).Select("1").
		Where("notifications.kind = ? AND notifications.subject_id = webhook_endpoints.id AND notifications.period = ?", MailWebhookFailing, today)
	if err := tx.Select("id", "account_id", "url", "failing_since").
		Where("enabled = ? AND failing_since IS NOT NULL AND failing_since <= ? AND id > ?", true, now.Add(-WebhookFailingNotice), after).
		Where("NOT EXISTS (?)", told).
		Order("id").Limit(s.sweepLimit).Find(&endpoints).Error; err != nil {
		return 0, "", err
	}
	queued := 0
	for _, e := range endpoints {
		to, err := accountRecipients(tx, e.AccountID, MailWebhookFailing)
		if err != nil {
			return queued, "", err
		}
		n, err := s.notify(tx, to, notice{kind: MailWebhookFailing, subjectID: e.ID, period: today,
			data: map[string]string{"endpoint_id": e.ID, "host": endpointHost(e.URL),
				"since": e.FailingSince.UTC().Format(time.RFC3339)}})
		queued += n
		if err != nil {
			return queued, "", err
		}
	}
	if len(endpoints) == 0 {
		return queued, "", nil
	}
	return queued, s.fullPage(len(endpoints), endpoints[len(endpoints)-1].ID), nil
}

// sweepExpiringKeys tells the holders of live keys that expire within
// APIKeyExpiryNotice, once per key and expiry.
func (s *Store) sweepExpiringKeys(tx *gorm.DB, after string) (int, string, error) {
	now := s.Now()
	var keys []APIKey
	// A key's expiry never changes, so a key told of once is done.
	told := tx.Model(&Notification{}).Select("1").
		Where("notifications.kind = ? AND notifications.subject_id = api_keys.id", MailAPIKeyExpiring)
	if err := tx.Select("id", "account_id", "user_id", "name", "prefix", "expires_at").
		Where("revoked_at IS NULL AND expires_at > ? AND expires_at <= ? AND id > ?", now, now.Add(APIKeyExpiryNotice), after).
		Where("NOT EXISTS (?)", told).
		Order("id").Limit(s.sweepLimit).Find(&keys).Error; err != nil {
		return 0, "", err
	}
	queued := 0
	for _, k := range keys {
		to, err := accountRecipient(tx, k.AccountID, k.UserID, MailAPIKeyExpiring)
		if err != nil {
			return queued, "", err
		}
		expires := k.ExpiresAt.UTC().Format(time.RFC3339)
		n, err := s.notify(tx, to, notice{kind: MailAPIKeyExpiring, subjectID: k.ID, period: expires,
			data: map[string]string{"key_id": k.ID, "name": k.Name, "prefix": k.Prefix, "expires_at": expires}})
		queued += n
		if err != nil {
			return queued, "", err
		}
	}
	if len(keys) == 0 {
		return queued, "", nil
	}
	return queued, s.fullPage(len(keys), keys[len(keys)-1].ID), nil
}

// pruneNotifications forgets records older than NotificationRetention.
func (s *Store) pruneNotifications(ctx context.Context) error {
	cutoff := s.Now().Add(-NotificationRetention)
	return s.write(ctx, func(tx *gorm.DB) error {
		old := tx.Model(&Notification{}).Select("id").Where("created_at < ?", cutoff).Limit(s.sweepLimit)
		return tx.Where("id IN (?)", old).Delete(&Notification{}).Error
	})
}

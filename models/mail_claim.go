package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// ClaimMail leases up to limit due messages to owner until lease from
// the start of its transaction: pending, due, and under no unexpired
// lease. On PostgreSQL the rows are picked FOR UPDATE SKIP LOCKED, so two
// workers claiming at once never take the same message; SQLite serialises
// writers. It is the mail worker's operation, not a user's.
func (s *Store) ClaimMail(ctx context.Context, owner string, limit int, lease time.Duration) ([]MailJob, error) {
	var jobs []MailJob
	err := s.write(ctx, func(tx *gorm.DB) error {
		now := s.Now()
		jobs = nil
		var ids []string
		if err := tx.Model(&MailMessage{}).Clauses(skipLocked).
			Where("status = ? AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)", MailPending, now, now).
			Order("next_attempt_at, id").Limit(limit).Pluck("id", &ids).Error; err != nil || len(ids) == 0 {
			return err
		}
		if err := tx.Model(&MailMessage{}).Where("id IN ?", ids).
			Updates(map[string]any{"lease_owner": owner, "lease_until": now.Add(lease)}).Error; err != nil {
			return err
		}
		var rows []MailMessage
		if err := tx.Where("id IN ?", ids).Order("next_attempt_at, id").Find(&rows).Error; err != nil {
			return err
		}
		for _, m := range rows {
			jobs = append(jobs, m.job())
		}
		return nil
	})
	return jobs, err
}

// MailOutcome is how one attempt at a claimed message ended.
type MailOutcome struct {
	ID    string
	Error string     // empty when the server accepted the message
	Retry *time.Time // when to try again after an error; nil gives up
	// LogOnly is a message "sent" to the server's log (no SMTP server):
	// its data is kept until its links expire, so support staff can pass
	// the link on from the mail log (UnsentLinks).
	LogOnly bool
}

// maxMailError bounds the error kept in the mail log.
const maxMailError = 1024

// RecordMailAttempt counts an attempt of a message owner holds the lease
// of: sent, pending again until o.Retry, or failed; the lease is released
// and a sent or failed message's data cleared. A lease lost meanwhile (it
// expired and another worker took the message) changes nothing and
// reports false.
func (s *Store) RecordMailAttempt(ctx context.Context, owner string, o MailOutcome) (bool, error) {
	held := false
	err := s.write(ctx, func(tx *gorm.DB) error {
		now := s.Now()
		var m MailMessage
		if err := tx.Clauses(forUpdate).Where("id = ?", o.ID).Take(&m).Error; err != nil {
			return err
		}
		held = m.Status == MailPending && m.LeaseOwner == owner && m.LeaseUntil != nil
		if !held {
			return nil
		}
		up := map[string]any{"attempts": m.Attempts + 1, "lease_owner": "", "lease_until": nil,
			"updated_at": now, "last_error": truncate(o.Error, maxMailError)}
		switch {
		case o.Error == "" && o.LogOnly:
			up["status"], up["sent_at"], up["data"] = MailSent, now, logOnlyData(m.Data)
		case o.Error == "":
			up["status"], up["sent_at"], up["data"] = MailSent, now, "{}"
		case o.Retry != nil:
			up["next_attempt_at"] = dbTime(*o.Retry)
		default:
			up["status"], up["data"] = MailFailed, "{}"
		}
		return tx.Model(&MailMessage{}).Where("id = ?", m.ID).Updates(up).Error
	})
	return held, err
}

// ReleaseMail gives back owner's leases on ids that were not attempted
// (the worker is stopping), so another worker may send them at once.
func (s *Store) ReleaseMail(ctx context.Context, owner string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		return tx.Model(&MailMessage{}).Where("id IN ? AND lease_owner = ? AND status = ?", ids, owner, MailPending).
			Updates(map[string]any{"lease_owner": "", "lease_until": nil}).Error
	})
}

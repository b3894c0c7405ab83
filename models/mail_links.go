package models

import (
	"context"
	"encoding/json"
	"time"

	"gorm.io/gorm"
)

// mailExpiresKey is the data key of a message's expiry: when the links it
// carries stop working. The worker sends nothing after it, and data
// (tokens included) is cleared when it passes, when the message is sent
// or given up.
const mailExpiresKey = "expires_at"

// enqueueMailUntil queues a message whose links work until until.
func (s *Store) enqueueMailUntil(tx *gorm.DB, kind, recipient string, until time.Time, data map[string]string) error {
	data[mailExpiresKey] = until.UTC().Format(time.RFC3339)
	return s.enqueueMail(tx, kind, recipient, data)
}

// MailExpiry is when job's links stop working; zero when it has none.
func MailExpiry(job MailJob) time.Time {
	at, err := time.Parse(time.RFC3339, job.Data[mailExpiresKey])
	if err != nil {
		return time.Time{}
	}
	return at
}

// resetRequestKey marks a reset message that still has to be resolved:
// the request only queued the address it was made for, so a known and an
// unknown address cost the same; the worker resolves it (ResolveMail).
const resetRequestKey = "request_ip"

// ResolveMail prepares a claimed message for sending, on the worker:
// a password reset request is resolved now, when the address names a
// user, into a one-time link valid SelfServiceResetTTL (replacing any
// earlier one, recorded as user/updated); when it names nobody, the
// message is dropped (failed, "no account", data cleared) and ok is
// false. A message whose links expired or no longer work (used,
// replaced, ended by a change of password or email) is also dropped. Other messages
// come back as they are. owner must hold the message's lease.
func (s *Store) ResolveMail(ctx context.Context, owner string, job MailJob) (MailJob, bool, error) {
	if at := MailExpiry(job); !at.IsZero() && !s.now().Before(at) {
		_, err := s.RecordMailAttempt(ctx, owner, MailOutcome{ID: job.ID, Error: "not sent: its links expired"})
		return job, false, err
	}
	if dead := s.linkDead(ctx, job); dead != "" {
		_, err := s.RecordMailAttempt(ctx, owner, MailOutcome{ID: job.ID, Error: "not sent: " + dead})
		return job, false, err
	}
	if job.Kind != MailPasswordReset || job.Data["token"] != "" {
		return job, true, nil
	}
	ok := true
	err := s.write(ctx, func(tx *gorm.DB) error {
		var m MailMessage
		if err := tx.Clauses(forUpdate).Where("id = ?", job.ID).Take(&m).Error; err != nil {
			return err
		}
		if m.Status != MailPending || m.LeaseOwner != owner {
			ok = false // the lease was lost; its holder resolves it
			return nil
		}
		u, err := userByEmail(tx, job.Recipient)
		if ErrorCode(err) == CodeNotFound {
			ok = false
			return tx.Model(&MailMessage{}).Where("id = ?", m.ID).Updates(map[string]any{"status": MailFailed,
				"data": "{}", "lease_owner": "", "lease_until": nil, "updated_at": s.Now(),
				"last_error": "not sent: no account has this email"}).Error
		} else if err != nil {
			return err
		}
		token, err := s.issueResetToken(tx, u, SelfServiceResetTTL)
		if err != nil {
			return err
		}
		data := map[string]string{"token": token, "email": u.Email, "expires_in": "1 hour",
			mailExpiresKey: s.Now().Add(SelfServiceResetTTL).UTC().Format(time.RFC3339)}
		raw, err := json.Marshal(data)
		if err != nil {
			return err
		}
		if err := tx.Model(&MailMessage{}).Where("id = ?", m.ID).Update("data", string(raw)).Error; err != nil {
			return err
		}
		job.Data = data
		return s.auditPersonal(tx, u.Actor(), u.ID, "user", "updated", []string{lrn("user", u.ID)},
			map[string]any{"password_reset": "link emailed", "source_ip": m.Data[resetRequestKey]})
	})
	return job, ok && err == nil, err
}

// linkDead says why job's link no longer works (used, replaced, ended by
// a change of password or email), or "" when it works or job has none: a
// dead link is not mailed.
func (s *Store) linkDead(ctx context.Context, job MailJob) string {
	token := job.Data["token"]
	if token == "" {
		return ""
	}
	var err error
	switch job.Kind {
	case MailPasswordReset:
		_, err = s.resetTokenUser(s.read(ctx), token)
	case MailEmailChangeConfirm:
		_, err = s.emailChangeOf(s.read(ctx), token)
	}
	if ErrorCode(err) == CodeNotFound {
		return "its link was used, replaced or ended"
	}
	return ""
}

// RenewMailLease extends owner's lease on message id to lease from now,
// before each send, and reports whether owner still held it: a message
// whose lease ran out (and that another worker may be sending) is not
// sent.
func (s *Store) RenewMailLease(ctx context.Context, owner, id string, lease time.Duration) (bool, error) {
	held := false
	err := s.write(ctx, func(tx *gorm.DB) error {
		now := s.Now()
		res := tx.Model(&MailMessage{}).
			Where("id = ? AND lease_owner = ? AND status = ? AND lease_until > ?", id, owner, MailPending, now).
			Update("lease_until", now.Add(lease))
		held = res.RowsAffected == 1
		return res.Error
	})
	return held, err
}

// ExpireMail clears the data (links) of pending messages whose links
// expired and marks them failed, so no token outlives its link in the
// outbox, backups included. It is the mail worker's, run with pruning.
func (s *Store) ExpireMail(ctx context.Context) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *gorm.DB) error {
		var rows []MailMessage
		if err := tx.Where("(status = ? AND (lease_until IS NULL OR lease_until <= ?)) OR (status = ? AND data LIKE ?)",
			MailPending, s.Now(), MailSent, "%"+logOnlyKey+"%").Find(&rows).Error; err != nil {
			return err
		}
		for _, m := range rows {
			if at := MailExpiry(m.job()); at.IsZero() || s.now().Before(at) {
				continue
			}
			up := map[string]any{"status": MailFailed, "data": "{}", "updated_at": s.Now(),
				"last_error": "not sent: its links expired"}
			if m.Status == MailSent { // written to the log: only its link goes
				up = map[string]any{"data": "{}"}
			}
			res := tx.Model(&MailMessage{}).Where("id = ? AND status = ?", m.ID, m.Status).Updates(up)
			if res.Error != nil {
				return res.Error
			}
			n += res.RowsAffected
		}
		return nil
	})
	return n, err
}

// PruneMail deletes sent and failed messages last updated before
// s.Now()-keep and reports how many. Pending messages stay.
func (s *Store) PruneMail(ctx context.Context, keep time.Duration) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *gorm.DB) error {
		res := tx.Where("status IN ? AND updated_at < ?", []string{MailSent, MailFailed}, s.Now().Add(-keep)).
			Delete(&MailMessage{})
		n = res.RowsAffected
		return res.Error
	})
	return n, err
}

// Email change limits: per user (counted by the notices mailed to their
// current address) and per new address, over a day, so a session cannot
// use the server to mail third parties.
const (
	EmailChangesPerUserPerDay      = 5
	EmailChangesPerRecipientPerDay = 3
)

// throttleEmailChanges refuses another email change when userID's
// current address (email) or the new one had too many in the last day.
func throttleEmailChanges(tx *gorm.DB, oldEmail, newEmail string, now time.Time) error {
	since := now.Add(-24 * time.Hour)
	for _, c := range []struct {
		kind, to string
		max      int64
	}{{MailEmailChangeNotice, oldEmail, EmailChangesPerUserPerDay}, {MailEmailChangeConfirm, newEmail, EmailChangesPerRecipientPerDay}} {
		var n int64
		if err := tx.Model(&MailMessage{}).Where("kind = ? AND recipient = ? AND created_at > ?", c.kind, c.to, since).
			Count(&n).Error; err != nil {
			return err
		}
		if n >= c.max {
			return &Error{Code: CodeRateLimited, Message: "Too many email changes today",
				Suggestion: "Try again tomorrow, or ask support to change your email"}
		}
	}
	return nil
}

// logOnlyKey marks the data of a message written to the log instead of
// sent, kept until its links expire for the mail log.
const logOnlyKey = "log_only"

// logOnlyData is data as a log-only message keeps it: its links and
// expiry, marked.
func logOnlyData(data map[string]string) string {
	keep := map[string]string{logOnlyKey: "1"}
	for _, k := range []string{"token", "cancel_token", mailExpiresKey} {
		if data[k] != "" {
			keep[k] = data[k]
		}
	}
	raw, _ := json.Marshal(keep)
	return string(raw)
}

// MailLink is the live link of a message that was written to the log, not
// sent: Kind says which page its token opens.
type MailLink struct {
	Kind, Token string
	Expires     time.Time
}

// UnsentLinks returns, for the messages among ids that were written to
// the server's log instead of sent (no SMTP server), the link each
// carries while it still works, for support staff to pass on: they can
// reset a password anyway. Never shown to the requester; others get
// CodeForbidden.
func (s *Store) UnsentLinks(ctx context.Context, actor Actor, ids []string) (map[string]MailLink, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff can read the mail log")
	}
	out := map[string]MailLink{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []MailMessage
	if err := s.read(ctx).Where("id IN ? AND status = ? AND data LIKE ?", ids, MailSent, "%"+logOnlyKey+"%").
		Find(&rows).Error; err != nil {
		return nil, translate(err)
	}
	for _, m := range rows {
		job := m.job()
		at := MailExpiry(job)
		if at.IsZero() || !s.now().Before(at) || s.linkDead(ctx, job) != "" {
			continue
		}
		token := m.Data["token"]
		if m.Kind == MailEmailChangeNotice {
			token = m.Data["cancel_token"]
			if _, err := s.emailCancelUser(s.read(ctx), token); err != nil {
				continue
			}
		}
		if token != "" {
			out[m.ID] = MailLink{Kind: m.Kind, Token: token, Expires: at}
		}
	}
	return out, nil
}

package models

import (
	"gorm.io/gorm"
)

// endSignIns ends userID's sessions, except keep (the acting session, or
// "" for every one), and all their half-finished sign-ins, in tx, and
// says how many sessions ended. A change of password or second factor
// calls it: whoever held the old credential keeps neither a session nor
// a pending second step.
func endSignIns(tx *gorm.DB, userID, keep string) (int64, error) {
	if err := endPendingSignIns(tx, userID); err != nil {
		return 0, err
	}
	q := tx.Where("user_id = ?", userID)
	if keep != "" {
		q = q.Where("id <> ?", keep)
	}
	res := q.Delete(&Session{})
	return res.RowsAffected, res.Error
}

// endPendingSignIns deletes userID's half-finished sign-ins, in tx: a
// second step started under the factors they had no longer completes.
func endPendingSignIns(tx *gorm.DB, userID string) error {
	return tx.Where("user_id = ?", userID).Delete(&PendingSignIn{}).Error
}

// Factors named in the factor-removed mail (MailFactorRemoved).
const (
	RemovedTOTP    = "two-factor authentication (authenticator app)"
	RemovedPasskey = "passkey"
	RemovedAll     = "every second factor and passkey"
)

// factorRemovedMail queues the MailFactorRemoved notice to u, in tx:
// which factor (a Removed* value, with name for a passkey) and by whom
// ("you" or "the operator"). It cannot be turned off: it is how a user
// learns that someone else weakened their sign-in.
func (s *Store) factorRemovedMail(tx *gorm.DB, u *User, factor, name, by string) error {
	return s.enqueueMail(tx, MailFactorRemoved, u.Email, map[string]string{
		"factor": factor, "name": name, "by": by,
		"time": s.Now().UTC().Format("2 January 2006 15:04 UTC")})
}

// wokeMail wakes the mail worker when err is nil (the write that queued a
// message committed) and returns err.
func (s *Store) wokeMail(err error) error {
	if err == nil {
		s.wakeMail()
	}
	return err
}

package models

import (
	"crypto/rand"
	"strings"
	"time"

	"gorm.io/gorm"
)

// RecoveryCode is one of a user's one-time codes for when their
// authenticator is lost. Only the code's SHA-256 is stored: a code has 80
// random bits, so unlike a password it needs no slow hash, and nobody can
// search 2^80 codes from a copy of the database. UsedAt is set when it is
// used; a used code never works again.
type RecoveryCode struct {
	ID        string `gorm:"primaryKey;size:32"`
	UserID    string `gorm:"size:32;not null;index"`
	CodeHash  string `gorm:"size:64;not null"`
	UsedAt    *time.Time
	CreatedAt time.Time `gorm:"not null"`
}

// RecoveryCodeCount is how many recovery codes a user gets at a time.
const RecoveryCodeCount = 10

// recoveryAlphabet has 32 characters (a byte modulo 32 is unbiased),
// without the i, l, o and 1 people confuse.
const recoveryAlphabet = "abcdefghjkmnpqrstuvwxyz023456789"

// newRecoveryCode returns a code of four groups of four characters from
// a 32-letter alphabet: 16 characters, 80 bits.
func newRecoveryCode() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%4 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(recoveryAlphabet[int(c)%len(recoveryAlphabet)])
	}
	return sb.String()
}

// normalizeRecoveryCode is a code as typed, without spaces or dashes, in
// lower case: the form that is hashed.
func normalizeRecoveryCode(code string) string {
	code = strings.ToLower(code)
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, code)
}

// replaceRecoveryCodes deletes userID's recovery codes and stores
// RecoveryCodeCount new ones, returned in the clear this once.
func (s *Store) replaceRecoveryCodes(tx *gorm.DB, userID string) ([]string, error) {
	if err := tx.Where("user_id = ?", userID).Delete(&RecoveryCode{}).Error; err != nil {
		return nil, err
	}
	codes := make([]string, RecoveryCodeCount)
	rows := make([]RecoveryCode, RecoveryCodeCount)
	for i := range codes {
		codes[i] = newRecoveryCode()
		rows[i] = RecoveryCode{ID: NewID(), UserID: userID, CodeHash: hashSecret(normalizeRecoveryCode(codes[i])),
			CreatedAt: s.Now()}
	}
	return codes, tx.Create(&rows).Error
}

// useRecoveryCode marks userID's unused recovery code equal to code used,
// in one conditional update, so that a code works once even for two
// requests at the same moment; records user/recovery_code_used with the
// codes left.
func (s *Store) useRecoveryCode(tx *gorm.DB, actor Actor, userID, code string) error {
	norm := normalizeRecoveryCode(code)
	if len(norm) != 16 {
		return errBadSecondFactorCode
	}
	// Recovery codes stand in for the authenticator app, not a passkey.
	f, err := secondFactorsOf(tx, userID)
	if err != nil {
		return err
	}
	if !f.TOTP {
		return errBadSecondFactorCode
	}
	res := tx.Model(&RecoveryCode{}).Where("user_id = ? AND code_hash = ? AND used_at IS NULL", userID, hashSecret(norm)).
		Update("used_at", s.Now())
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected != 1 {
		return errBadSecondFactorCode
	}
	var left int64
	if err := tx.Model(&RecoveryCode{}).Where("user_id = ? AND used_at IS NULL", userID).Count(&left).Error; err != nil {
		return err
	}
	return s.auditPersonal(tx, actor, userID, "user", "recovery_code_used", []string{lrn("user", userID)},
		map[string]any{"recovery_codes_left": left})
}

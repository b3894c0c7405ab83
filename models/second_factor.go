package models

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"gorm.io/gorm"
)

// SecondFactor is a user's TOTP authenticator (RFC 6238: 30-second steps,
// 6 digits, SHA-1, as every authenticator app reads an otpauth:// URL).
// It counts only once Confirmed: enrolment stores the secret, a code from
// the app confirms it. LastStep is the time step of the last code
// accepted: a code of that step or an earlier one is refused, so each
// code works once even inside its window. The secret is stored as is:
// the server must compute codes from it.
type SecondFactor struct {
	UserID    string    `gorm:"primaryKey;size:32"`
	Secret    string    `gorm:"size:64;not null"`
	Confirmed bool      `gorm:"not null;default:false"`
	LastStep  int64     `gorm:"not null;default:0"`
	CreatedAt time.Time `gorm:"not null"`
	UpdatedAt time.Time `gorm:"not null"`
}

// TOTP's parameters: what authenticator apps assume when a URL omits them.
const (
	totpPeriod = 30
	// totpSkew is how many steps either side of now a code is accepted:
	// one, for a phone's clock a little off and the time to type.
	totpSkew   = 1
	totpIssuer = "cloudplane"
)

// Ways of completing a second step, as SessionOrigin.Method appends them.
const (
	FactorTOTP     = "totp"
	FactorRecovery = "recovery"
)

var errBadSecondFactorCode = &Error{Code: CodeForbidden, Message: "The code is incorrect or was already used",
	Suggestion: "Enter the current code from your authenticator app, or an unused recovery code"}

// IsBadSecondFactorCode reports whether err is the refusal of a wrong,
// replayed or used code.
func IsBadSecondFactorCode(err error) bool { return errors.Is(err, errBadSecondFactorCode) }

// TOTPEnrolment is a secret waiting for its first code: the text to type
// into an app and the otpauth:// URL a QR code carries.
type TOTPEnrolment struct {
	Secret string
	URL    string
}

// SecondFactorState is what the account page shows of a user's second
// factor.
type SecondFactorState struct {
	Enabled bool
	// Pending is the enrolment waiting for a code, nil if none.
	Pending *TOTPEnrolment
	// RecoveryCodesLeft counts the unused recovery codes.
	RecoveryCodesLeft int
	// Required says an account of theirs (or support staff's rule)
	// requires a second factor and they have no passkey, so TOTP cannot
	// be turned off.
	Required bool
}

// enrolmentOf returns the enrolment of an unconfirmed factor of email.
func enrolmentOf(f *SecondFactor, email string) *TOTPEnrolment {
	return &TOTPEnrolment{Secret: f.Secret, URL: otpURL(f.Secret, email)}
}

// otpURL is the otpauth:// URL of secret for the account named email.
func otpURL(secret, email string) string {
	q := url.Values{}
	q.Set("secret", secret)
	q.Set("issuer", totpIssuer)
	q.Set("algorithm", "SHA1")
	q.Set("digits", "6")
	q.Set("period", "30")
	u := url.URL{Scheme: "otpauth", Host: "totp", Path: "/" + totpIssuer + ":" + email, RawQuery: q.Encode()}
	return u.String()
}

// SecondFactorStatus returns the signed-in user's second factor state.
func (s *Store) SecondFactorStatus(ctx context.Context, actor Actor) (*SecondFactorState, error) {
	db := s.read(ctx)
	var out SecondFactorState
	f, err := secondFactorOf(db, actor.UserID)
	if err != nil {
		return nil, err
	}
	if f != nil && f.Confirmed {
		out.Enabled = true
	} else if f != nil {
		out.Pending = enrolmentOf(f, actor.Email)
	}
	var n int64
	if err := db.Model(&RecoveryCode{}).Where("user_id = ? AND used_at IS NULL", actor.UserID).Count(&n).Error; err != nil {
		return nil, err
	}
	out.RecoveryCodesLeft = int(n)
	var u User
	if err := db.Where("id = ?", actor.UserID).Take(&u).Error; err != nil {
		return nil, translate(err)
	}
	if out.Required, err = s.mustHaveSecondFactor(db, &u); err != nil {
		return nil, err
	}
	if out.Required {
		// With a passkey, TOTP may go: the passkey is their second factor.
		f, err := secondFactorsOf(db, u.ID)
		if err != nil {
			return nil, err
		}
		out.Required = !f.Passkey
	}
	return &out, nil
}

// StartSecondFactorEnrolment gives the signed-in user a new TOTP secret to
// confirm with a code (ConfirmSecondFactor); until then it counts for
// nothing. A second factor already on must be turned off first. Not
// audited: nothing changes for the user until the code confirms it.
func (s *Store) StartSecondFactorEnrolment(ctx context.Context, actor Actor) (*TOTPEnrolment, error) {
	if actor.UserID == "" || actor.Operator {
		return nil, Errorf(CodeForbidden, "Only a signed-in user can enrol a second factor")
	}
	var out *TOTPEnrolment
	err := s.write(ctx, func(tx *gorm.DB) error {
		f, err := s.startEnrolment(tx, actor.UserID, time.Time{})
		if err != nil {
			return err
		}
		out = enrolmentOf(f, actor.Email)
		return nil
	})
	return out, err
}

// startEnrolment stores a new unconfirmed secret for userID, or returns
// the one already waiting if it was made at or after keepSince (a zero
// keepSince always makes a new one); a confirmed factor is a conflict.
// A half-signed-in user reloading the enrol step keeps the secret made for
// that step, never one someone else may have started earlier in a session.
func (s *Store) startEnrolment(tx *gorm.DB, userID string, keepSince time.Time) (*SecondFactor, error) {
	if err := lockUser(tx, userID); err != nil {
		return nil, translate(err)
	}
	f, err := secondFactorOf(tx, userID)
	if err != nil {
		return nil, err
	}
	if f != nil && f.Confirmed {
		return nil, &Error{Code: CodeConflict, Message: "Two-factor authentication is already on",
			Suggestion: "Turn it off first to enrol another authenticator"}
	}
	if f != nil && !keepSince.IsZero() && !f.UpdatedAt.Before(keepSince) {
		return f, nil
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: userID})
	if err != nil {
		return nil, err
	}
	now := s.Now()
	nf := &SecondFactor{UserID: userID, Secret: key.Secret(), CreatedAt: now, UpdatedAt: now}
	if f != nil {
		return nf, tx.Model(&SecondFactor{}).Where("user_id = ?", userID).
			Updates(map[string]any{"secret": nf.Secret, "last_step": 0, "updated_at": now}).Error
	}
	return nf, tx.Create(nf).Error
}

// ConfirmSecondFactor turns the signed-in user's waiting enrolment on with
// a code from their app, and returns their 10 new recovery codes, which
// are shown once and stored only hashed. Done from a dashboard session,
// the user's other sessions and half-finished sign-ins end: one opened
// with the password alone does not outlive the factor meant to stop it. Records user/second_factor_enabled
// with the count of sessions ended.
func (s *Store) ConfirmSecondFactor(ctx context.Context, actor Actor, code string) ([]string, error) {
	var codes []string
	err := s.write(ctx, func(tx *gorm.DB) error {
		var err error
		codes, err = s.confirmEnrolment(tx, actor, actor.UserID, code, actor.SessionID != "")
		return err
	})
	return codes, err
}

// confirmEnrolment checks code against userID's waiting secret, turns it
// on, replaces their recovery codes and audits, in tx. With endOthers the
// user's sessions but the actor's, and their pending sign-ins, end.
func (s *Store) confirmEnrolment(tx *gorm.DB, actor Actor, userID, code string, endOthers bool) ([]string, error) {
	if err := lockUser(tx, userID); err != nil {
		return nil, translate(err)
	}
	f, err := secondFactorOf(tx, userID)
	if err != nil {
		return nil, err
	}
	if f == nil || f.Confirmed {
		return nil, &Error{Code: CodeConflict, Message: "There is no enrolment waiting for a code",
			Suggestion: "Start again from the Two-factor authentication section"}
	}
	step, ok := matchTOTP(f.Secret, code, s.Now(), f.LastStep)
	if !ok {
		return nil, errBadSecondFactorCode
	}
	err = tx.Model(&SecondFactor{}).Where("user_id = ?", userID).
		Updates(map[string]any{"confirmed": true, "last_step": step, "updated_at": s.Now()}).Error
	if err != nil {
		return nil, err
	}
	codes, err := s.replaceRecoveryCodes(tx, userID)
	if err != nil {
		return nil, err
	}
	details := map[string]any{"second_factor": "totp"}
	if endOthers {
		ended, err := endSignIns(tx, userID, actor.SessionID)
		if err != nil {
			return nil, err
		}
		details["sessions_ended"] = ended
	}
	return codes, s.auditPersonal(tx, actor, userID, "user", "second_factor_enabled", []string{lrn("user", userID)}, details)
}

// DisableSecondFactor turns the signed-in user's second factor off and
// deletes their recovery codes, given a current code (TOTP or recovery)
// as proof. It is refused while an account of theirs requires a second
// factor and they have no passkey, which would be their second factor.
// Their half-finished sign-ins end and a MailFactorRemoved notice is
// queued. Records user/second_factor_disabled.
func (s *Store) DisableSecondFactor(ctx context.Context, actor Actor, code string) error {
	err := s.write(ctx, func(tx *gorm.DB) error {
		var u User
		if err := tx.Where("id = ?", actor.UserID).Take(&u).Error; err != nil {
			return translate(err)
		}
		if req, err := s.mustHaveSecondFactor(tx, &u); err != nil {
			return err
		} else if req {
			// A passkey left behind is a second factor too.
			if f, err := secondFactorsOf(tx, u.ID); err != nil {
				return err
			} else if !f.Passkey {
				return &Error{Code: CodeForbidden, Message: "A second factor is required of you, so it cannot be turned off",
					Suggestion: "Add a passkey first, or ask the operator to reset it if you lost your authenticator"}
			}
		}
		if _, err := s.checkSecondFactor(tx, actor, actor.UserID, code); err != nil {
			return err
		}
		if err := removeSecondFactor(tx, actor.UserID); err != nil {
			return err
		}
		if err := endPendingSignIns(tx, actor.UserID); err != nil {
			return err
		}
		if err := s.factorRemovedMail(tx, &u, RemovedTOTP, "", "you"); err != nil {
			return err
		}
		return s.auditPersonal(tx, actor, actor.UserID, "user", "second_factor_disabled", []string{lrn("user", actor.UserID)},
			map[string]any{"second_factor": "totp"})
	})
	return s.wokeMail(err)
}

// RegenerateRecoveryCodes replaces the signed-in user's recovery codes
// with 10 new ones, given a current code as proof; the old ones stop
// working. Records user/recovery_codes_regenerated.
func (s *Store) RegenerateRecoveryCodes(ctx context.Context, actor Actor, code string) ([]string, error) {
	var codes []string
	err := s.write(ctx, func(tx *gorm.DB) error {
		if _, err := s.checkSecondFactor(tx, actor, actor.UserID, code); err != nil {
			return err
		}
		var err error
		if codes, err = s.replaceRecoveryCodes(tx, actor.UserID); err != nil {
			return err
		}
		return s.auditPersonal(tx, actor, actor.UserID, "user", "recovery_codes_regenerated", []string{lrn("user", actor.UserID)},
			map[string]any{"recovery_codes": RecoveryCodeCount})
	})
	return codes, err
}

// VerifySecondFactor checks a code (TOTP or recovery) of the signed-in
// user to prove who they are again before a sensitive action; the code is
// used up (a TOTP step, a recovery code). A wrong code fails with
// IsBadSecondFactorCode; the caller throttles attempts. It returns the
// factor used (FactorTOTP or FactorRecovery).
func (s *Store) VerifySecondFactor(ctx context.Context, actor Actor, code string) (string, error) {
	var kind string
	err := s.write(ctx, func(tx *gorm.DB) error {
		var err error
		kind, err = s.checkSecondFactor(tx, actor, actor.UserID, code)
		return err
	})
	return kind, err
}

// ResetSecondFactor removes the second factor, recovery codes and
// passkeys of the user with email, in one transaction: the operator's way
// back in for someone who lost their authenticator or their passkeys.
// Every session and half-finished sign-in of the user ends, and a
// MailFactorRemoved notice is queued to them. Operator only. Records
// user/second_factor_reset, with the passkeys removed and the count of
// sessions ended.
func (s *Store) ResetSecondFactor(ctx context.Context, actor Actor, email string) error {
	if !actor.Operator {
		return Errorf(CodeForbidden, "Only the operator can reset a second factor")
	}
	err := s.write(ctx, func(tx *gorm.DB) error {
		u, err := userByEmail(tx, email)
		if err != nil {
			return err
		}
		if err := removeSecondFactor(tx, u.ID); err != nil {
			return err
		}
		var names []string
		if err := tx.Model(&Passkey{}).Where("user_id = ?", u.ID).Order("created_at, id").Pluck("name", &names).Error; err != nil {
			return err
		}
		for _, m := range []any{&Passkey{}, &PasskeyCeremony{}} {
			if err := tx.Where("user_id = ?", u.ID).Delete(m).Error; err != nil {
				return err
			}
		}
		ended, err := endSignIns(tx, u.ID, "")
		if err != nil {
			return err
		}
		if err := s.factorRemovedMail(tx, u, RemovedAll, "", "the operator"); err != nil {
			return err
		}
		if names == nil {
			names = []string{}
		}
		return s.auditPersonal(tx, actor, u.ID, "user", "second_factor_reset", []string{lrn("user", u.ID)},
			map[string]any{"second_factor": "removed with its recovery codes", "passkeys_removed": names,
				"sessions_ended": ended})
	})
	return s.wokeMail(err)
}

func removeSecondFactor(tx *gorm.DB, userID string) error {
	if err := tx.Where("user_id = ?", userID).Delete(&RecoveryCode{}).Error; err != nil {
		return err
	}
	return tx.Where("user_id = ?", userID).Delete(&SecondFactor{}).Error
}

// userHasSecondFactor reports whether userID has a second factor that a
// sign-in must ask for: a confirmed TOTP authenticator or a passkey.
func userHasSecondFactor(db *gorm.DB, userID string) (bool, error) {
	f, err := secondFactorsOf(db, userID)
	return f.TOTP || f.Passkey, err
}

// SecondFactors says which second factors a user has, for the second
// step of sign-in to offer each.
type SecondFactors struct {
	TOTP    bool // a confirmed authenticator (and its recovery codes)
	Passkey bool // at least one passkey
}

// UserSecondFactors returns which second factors userID has.
func (s *Store) UserSecondFactors(ctx context.Context, userID string) (SecondFactors, error) {
	return secondFactorsOf(s.read(ctx), userID)
}

func secondFactorsOf(db *gorm.DB, userID string) (SecondFactors, error) {
	var out SecondFactors
	var n int64
	if err := db.Model(&SecondFactor{}).Where("user_id = ? AND confirmed = ?", userID, true).Count(&n).Error; err != nil {
		return out, err
	}
	out.TOTP = n > 0
	if err := db.Model(&Passkey{}).Where("user_id = ?", userID).Count(&n).Error; err != nil {
		return out, err
	}
	out.Passkey = n > 0
	return out, nil
}

// mustHaveSecondFactor reports whether u must have a second factor: as
// support staff when the store's config says so, or as a member of an
// account whose owners require it.
func (s *Store) mustHaveSecondFactor(db *gorm.DB, u *User) (bool, error) {
	if u.Role == RoleSupport {
		return s.cfg.RequireSecondFactorForSupport, nil
	}
	var n int64
	err := db.Model(&Membership{}).Joins("JOIN accounts ON accounts.id = memberships.account_id").
		Where("memberships.user_id = ? AND accounts.require_second_factor = ?", u.ID, true).Count(&n).Error
	return n > 0, err
}

// checkSecondFactor checks code for userID in tx and uses it up: six
// digits are a TOTP code, anything else a recovery code. Using a
// recovery code is audited.
func (s *Store) checkSecondFactor(tx *gorm.DB, actor Actor, userID, code string) (string, error) {
	if factorOfCode(code) == FactorTOTP {
		f, err := secondFactorOf(tx, userID)
		if err != nil {
			return "", err
		}
		if f == nil || !f.Confirmed {
			return "", errBadSecondFactorCode
		}
		step, ok := matchTOTP(f.Secret, code, s.Now(), f.LastStep)
		if !ok {
			return "", errBadSecondFactorCode
		}
		// Conditional, so two requests racing with one code cannot both win.
		res := tx.Model(&SecondFactor{}).Where("user_id = ? AND last_step < ?", userID, step).
			Updates(map[string]any{"last_step": step, "updated_at": s.Now()})
		if res.Error != nil {
			return "", res.Error
		}
		if res.RowsAffected != 1 {
			return "", errBadSecondFactorCode
		}
		return FactorTOTP, nil
	}
	if err := s.useRecoveryCode(tx, actor, userID, code); err != nil {
		return "", err
	}
	return FactorRecovery, nil
}

// factorOfCode says what a typed code is: six digits (spaces allowed)
// are TOTP, anything else is taken for a recovery code.
func factorOfCode(code string) string {
	c := strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	if len(c) != 6 {
		return FactorRecovery
	}
	for _, r := range c {
		if r < '0' || r > '9' {
			return FactorRecovery
		}
	}
	return FactorTOTP
}

// matchTOTP returns the time step, within totpSkew of now and after the
// last accepted one, whose code is code. Every step of the window is
// compared in constant time.
func matchTOTP(secret, code string, now time.Time, after int64) (int64, bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	cur := now.Unix() / totpPeriod
	var found int64
	for step := cur - totpSkew; step <= cur+totpSkew; step++ {
		want, err := totpCode(secret, step)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && step > after {
			found = step
		}
	}
	return found, found != 0
}

// totpCode is secret's code at a time step.
func totpCode(secret string, step int64) (string, error) {
	return totp.GenerateCodeCustom(secret, time.Unix(step*totpPeriod, 0).UTC(), totp.ValidateOpts{
		Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
}

// secondFactorOf returns userID's factor, confirmed or not, nil if none.
func secondFactorOf(db *gorm.DB, userID string) (*SecondFactor, error) {
	var f SecondFactor
	err := db.Where("user_id = ?", userID).Take(&f).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	return &f, err
}

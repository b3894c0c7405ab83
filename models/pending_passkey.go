package models

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// FactorPasskey is a second step completed with a passkey, as
// SessionOrigin.Method appends it ("password+passkey").
const FactorPasskey = "passkey"

// pendingCeremonyToken is the token of the passkey ceremony of a pending
// sign-in: derived from the pending sign-in's own token, so the ceremony
// is bound to it (no other pending sign-in, session or re-authentication
// can answer it) and the browser needs no cookie beside the pending one.
// A new ceremony of the same pending sign-in replaces the last.
func pendingCeremonyToken(pendingToken string) string {
	return hashSecret("pending-passkey\x00" + pendingToken)
}

// BeginPendingPasskey returns the options for navigator.credentials.get
// that ask a user half signed in (PendingSecondFactor) for one of their
// own passkeys (allowCredentials: theirs; user verification required).
// An expired or exhausted pending sign-in fails with IsPendingInvalid; a
// user without a passkey is CodeNotFound.
func (s *Store) BeginPendingPasskey(ctx context.Context, rp RelyingParty, token string) ([]byte, error) {
	p, err := s.PendingSignInByToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if p.Reason != PendingSecondFactor {
		return nil, errPendingInvalid
	}
	options, session, err := s.passkeyCheckOptions(ctx, rp, p.UserID)
	if err != nil {
		return nil, err
	}
	return s.storeCeremony(ctx, pendingCeremonyToken(token), ceremonyCheck, &p.UserID, options, session)
}

// CompletePendingPasskey finishes a pending sign-in with the browser's
// answer to BeginPendingPasskey's options: an assertion by one of the
// pending user's own passkeys. The session's method is the first one's
// and "passkey" ("password+passkey"); the passkey's use is recorded. The
// attempt counts against MaxPendingAttempts as a code does, and the
// ceremony is used up, right or wrong. A passkey of another user, an
// unknown or copied one, or a missing ceremony is CodeForbidden (see
// FinishPasskeyCheck); an expired or exhausted pending sign-in fails
// with IsPendingInvalid.
func (s *Store) CompletePendingPasskey(ctx context.Context, rp RelyingParty, token string, credential []byte) (*SignedIn, error) {
	p, err := s.countPendingAttempt(ctx, token, PendingSecondFactor)
	if err != nil {
		return nil, err
	}
	session, err := s.takeCeremony(ctx, pendingCeremonyToken(token), ceremonyCheck, p.UserID)
	if err != nil {
		return nil, err
	}
	used, err := s.verifyAssertion(ctx, rp, *session, credential, p.UserID)
	if err != nil {
		return nil, err
	}
	origin := SessionOrigin{SourceIP: p.SourceIP, UserAgent: p.UserAgent, NewBrowser: p.NewBrowser,
		Method: p.Method + "+" + FactorPasskey}
	sess, stoken, err := s.startSession(ctx, origin, func(tx *gorm.DB) (*User, error) {
		u, err := s.takePending(tx, token)
		if err != nil {
			return nil, err
		}
		if u.ID != used.user.ID {
			return nil, refusedPasskey(errors.New("the credential belongs to another user"))
		}
		return u, s.recordPasskeyUse(tx, used)
	})
	if err != nil {
		return nil, err
	}
	return &SignedIn{Session: sess, Token: stoken, Next: p.NextPath}, nil
}

// BeginPendingPasskeyEnrolment returns the options for
// navigator.credentials.create for a user half signed in to enrol
// (PendingEnrol): a new passkey meets an account's requirement as TOTP
// does. The ceremony is bound to the pending sign-in, as
// BeginPendingPasskey's is.
func (s *Store) BeginPendingPasskeyEnrolment(ctx context.Context, rp RelyingParty, token string) ([]byte, error) {
	p, err := s.PendingSignInByToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if p.Reason != PendingEnrol {
		return nil, errPendingInvalid
	}
	options, session, err := s.registrationOptions(ctx, rp, p.UserID)
	if err != nil {
		return nil, err
	}
	return s.storeCeremony(ctx, pendingCeremonyToken(token), ceremonyRegister, &p.UserID, options, session)
}

// CompletePendingPasskeyEnrolment stores the passkey the browser made
// for BeginPendingPasskeyEnrolment's options under in.Name (in.Token is
// ignored: the ceremony is the pending sign-in's) and starts the
// session, "<method>+passkey", in one transaction with passkey/created.
// Attempts count as CompletePendingEnrolment's do; refusals are
// AddPasskey's.
func (s *Store) CompletePendingPasskeyEnrolment(ctx context.Context, rp RelyingParty, token string, in AddPasskeyInput) (*SignedIn, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	p, err := s.countPendingAttempt(ctx, token, PendingEnrol)
	if err != nil {
		return nil, err
	}
	session, err := s.takeCeremony(ctx, pendingCeremonyToken(token), ceremonyRegister, p.UserID)
	if err != nil {
		return nil, err
	}
	key, err := s.verifyRegistration(ctx, rp, *session, p.UserID, in)
	if err != nil {
		return nil, err
	}
	origin := SessionOrigin{SourceIP: p.SourceIP, UserAgent: p.UserAgent, NewBrowser: p.NewBrowser,
		Method: p.Method + "+" + FactorPasskey}
	sess, stoken, err := s.startSession(ctx, origin, func(tx *gorm.DB) (*User, error) {
		u, err := s.takePending(tx, token)
		if err != nil {
			return nil, err
		}
		if u.ID != key.UserID {
			return nil, errPendingInvalid
		}
		return u, s.insertPasskey(tx, u.Actor(), key)
	})
	if err != nil {
		return nil, err
	}
	return &SignedIn{Session: sess, Token: stoken, Next: p.NextPath}, nil
}

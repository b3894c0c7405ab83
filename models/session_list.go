package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// A user's sessions, as the Sessions section of their account page shows
// them: every one they are signed in with, which they may end one by one
// or all but the one in hand; an account's owner may end all of a
// member's. Every operation is limited to the sessions of the user it
// names: a session id of someone else's is CodeNotFound, as one that
// does not exist.

// Sessions returns the acting user's live sessions (not idle past the
// idle timeout nor older than the maximum age), the most recently used
// first.
func (s *Store) Sessions(ctx context.Context, actor Actor) ([]Session, error) {
	if actor.UserID == "" || actor.SessionID == "" {
		return nil, Errorf(CodeForbidden, "Only a dashboard session lists its user's sessions")
	}
	now := s.Now()
	var list []Session
	err := s.read(ctx).Where("user_id = ? AND last_seen_at >= ? AND created_at >= ?", actor.UserID,
		now.Add(-s.cfg.SessionIdleTimeout), now.Add(-s.cfg.SessionMaxAge)).
		Order("last_seen_at DESC, created_at DESC, id").Find(&list).Error
	return list, err
}

// EndSession signs the acting user out of one of their own sessions,
// recording a session/signed_out event naming it. A session that is not
// theirs, or no longer exists, is CodeNotFound: the id alone never ends
// anyone else's.
func (s *Store) EndSession(ctx context.Context, actor Actor, sessionID string) error {
	if actor.UserID == "" || actor.SessionID == "" {
		return Errorf(CodeForbidden, "Only a dashboard session signs out its user's sessions")
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		res := tx.Where("id = ? AND user_id = ?", sessionID, actor.UserID).Delete(&Session{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return NotFound("session", sessionID)
		}
		return s.auditPersonal(tx, actor, actor.UserID, "session", "signed_out", []string{lrn("session", sessionID)},
			map[string]any{"ended_from": actor.SessionID})
	})
}

// EndOtherSessions signs the acting user out of every session but the
// one they act from, recording one session/signed_out event naming them
// all (none when there were none). It returns how many ended.
func (s *Store) EndOtherSessions(ctx context.Context, actor Actor) (int, error) {
	if actor.UserID == "" || actor.SessionID == "" {
		return 0, Errorf(CodeForbidden, "Only a dashboard session signs out its user's sessions")
	}
	var n int
	err := s.write(ctx, func(tx *gorm.DB) error {
		ids, err := endSessions(tx, actor.UserID, actor.SessionID)
		if n = len(ids); err != nil || n == 0 {
			return err
		}
		return s.auditPersonal(tx, actor, actor.UserID, "session", "signed_out", sessionLRNs(ids),
			map[string]any{"ended_from": actor.SessionID, "count": n})
	})
	return n, err
}

// EndMemberSessions signs a member of the owner's account out of every
// session they have, recording member/sessions_ended in the account's
// log. Only an owner of the account (checked again in the transaction)
// may; a user who is not a member of it (another account's, support
// staff) is CodeNotFound, and an owner ends their own sessions from
// their account page, not here. It returns how many ended.
func (s *Store) EndMemberSessions(ctx context.Context, actor Actor, memberID string) (int, error) {
	accountID, err := actor.manages()
	if err != nil {
		return 0, err
	}
	if memberID == actor.UserID {
		return 0, Errorf(CodeInvalidParameters, "Sign out your own sessions from the Sessions section of your account page")
	}
	var n int
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := ownerNow(tx, actor, accountID); err != nil {
			return err
		}
		if _, err := membership(tx, accountID, memberID); err != nil {
			return err
		}
		var u User
		if err := tx.Where("id = ?", memberID).Take(&u).Error; err != nil {
			return err
		}
		ids, err := endSessions(tx, memberID, "")
		if err != nil {
			return err
		}
		n = len(ids)
		return s.audit(tx, actor, accountID, "member", "sessions_ended", []string{lrn("user", memberID)},
			map[string]any{"email": u.Email, "count": n})
	})
	return n, err
}

// endSessions deletes the user's sessions but keep (none when ""), and
// returns their ids.
func endSessions(tx *gorm.DB, userID, keep string) ([]string, error) {
	var ids []string
	if err := tx.Model(&Session{}).Where("user_id = ? AND id <> ?", userID, keep).Order("id").
		Pluck("id", &ids).Error; err != nil || len(ids) == 0 {
		return nil, err
	}
	return ids, tx.Where("user_id = ? AND id IN ?", userID, ids).Delete(&Session{}).Error
}

func sessionLRNs(ids []string) []string {
	l := make([]string, len(ids))
	for i, id := range ids {
		l[i] = lrn("session", id)
	}
	return l
}

// IdentityProof is the password a signed-in user gives to prove again
// who they are before a sensitive action (ConfirmIdentity). The other
// ways have their own operations, each ending in identityConfirmed:
// ConfirmIdentityWithCode, ConfirmIdentityWithPasskey and
// ConfirmIdentityWithSSO; ReauthMethods says which a user has.
type IdentityProof struct {
	Password string
}

// ErrReauthRequired refuses a sensitive action in a session whose user
// has not proved who they are within ReauthWindow: the dashboard asks
// again (/confirm-identity) and comes back.
var ErrReauthRequired = &Error{Code: CodeForbidden,
	Message:    "This needs you to confirm it's you: you last did more than 10 minutes ago.",
	Suggestion: "Confirm your identity, then try again."}

// ConfirmIdentity checks the proof against the acting user and, when it
// holds, marks their session as just authenticated (AuthenticatedAt =
// now), recording session/reauthenticated with the method. A wrong
// password is a field error on password. The caller throttles attempts
// (the dashboard counts them against the session, as other password
// checks).
func (s *Store) ConfirmIdentity(ctx context.Context, actor Actor, proof IdentityProof) error {
	if actor.UserID == "" || actor.SessionID == "" {
		return Errorf(CodeForbidden, "Only a dashboard session confirms its user's identity")
	}
	u, err := s.User(ctx, actor.UserID)
	if err != nil {
		return err
	}
	if !u.HasPassword() {
		return &Error{Code: CodeForbidden, Message: "You have no password",
			Suggestion: "Confirm it's you with single sign-on, a passkey or a code"}
	}
	if ok, err := s.passwordMatches(ctx, actor.passwordPriority(), []byte(u.PasswordHash), proof.Password); err != nil {
		return err
	} else if !ok {
		return InvalidField("password", "is incorrect")
	}
	return s.write(ctx, func(tx *gorm.DB) error { return s.identityConfirmed(tx, actor, MethodPassword) })
}

// identityConfirmed marks the actor's session as authenticated now,
// inside tx, once a proof by method (a Method* value) held: every way of
// proving identity again ends here, audited as session/reauthenticated.
// A session that has ended meanwhile is ErrNoSession.
func (s *Store) identityConfirmed(tx *gorm.DB, actor Actor, method string) error {
	if n, err := markAuthenticated(tx, actor, s.Now()); err != nil {
		return err
	} else if n == 0 {
		return ErrNoSession
	}
	return s.auditPersonal(tx, actor, actor.UserID, "session", "reauthenticated",
		[]string{lrn("session", actor.SessionID)}, map[string]any{"method": method})
}

// markAuthenticated sets the actor's session's AuthenticatedAt and says
// how many sessions it marked (0 or 1). A change of password or email
// calls it too: its check of the current password is a proof, recorded
// by that change's own event.
func markAuthenticated(tx *gorm.DB, actor Actor, now time.Time) (int64, error) {
	if actor.SessionID == "" {
		return 0, nil // an API key or the CLI: no session to mark
	}
	res := tx.Model(&Session{}).Where("id = ? AND user_id = ?", actor.SessionID, actor.UserID).
		Update("authenticated_at", now)
	return res.RowsAffected, res.Error
}

// requireRecentAuth refuses (ErrReauthRequired) a sensitive action from
// a dashboard session whose user has not proved who they are within
// ReauthWindow. Actors without a session (API keys, the CLI) pass: their
// credentials are their own proof.
func (s *Store) requireRecentAuth(db *gorm.DB, actor Actor) error {
	if actor.SessionID == "" {
		return nil
	}
	var sess Session
	err := db.Select("id", "authenticated_at").Where("id = ? AND user_id = ?", actor.SessionID, actor.UserID).Take(&sess).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNoSession
	} else if err != nil {
		return err
	}
	if !sess.RecentlyAuthenticated(s.Now()) {
		return ErrReauthRequired
	}
	return nil
}

// newBrowserMail queues the "new sign-in" mail for a sign-in from a
// browser the user has not signed in from before (SessionOrigin.NewBrowser:
// for a password, no device cookie of this login), in the sign-in's
// transaction. The user's first sign-in ever by a credential (not by a
// mailed link: setup, invitation, reset) sends none: it is the browser
// they started with, and no browser is known yet to compare with.
// Earlier sign-ins are found in the platform's audit log
// (session/signed_in not recorded with method link).
func (s *Store) newBrowserMail(tx *gorm.DB, u *User, sess *Session) (bool, error) {
	var earlier []string
	err := tx.Model(&AuditEvent{}).Where("account_id = '' AND resource_name = 'session' AND action = 'signed_in' "+
		"AND actor_lrn = ? AND additional_details NOT LIKE ?", lrn("user", u.ID), `%"method":"`+MethodLink+`"%`).
		Limit(1).Pluck("id", &earlier).Error
	if err != nil || len(earlier) == 0 {
		return false, err
	}
	return true, s.enqueueMail(tx, MailNewSignIn, u.Email, map[string]string{
		"user_agent": sess.UserAgent, "source_ip": sess.SourceIP,
		"time": sess.CreatedAt.UTC().Format("2 January 2006 15:04 UTC")})
}

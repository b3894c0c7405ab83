package models

import (
	"fmt"
	"net/url"
	"time"

	"gorm.io/gorm"
)

// TicketReplyWindow gathers support's replies to a ticket: one mail per
// ticket and recipient for the replies of each window, sent when it
// ends and naming how many there were.
const TicketReplyWindow = 5 * time.Minute

// Membership changes notifyMembership tells of.
const (
	MembershipAdded       = "added"
	MembershipRoleChanged = "role_changed"
)

// notifyTicketUpdate tells a ticket's author what support did to it:
// solved or closed it (at once), or replied (gathered per
// TicketReplyWindow). An owner's own changes tell no one.
func (s *Store) notifyTicketUpdate(tx *gorm.DB, actor Actor, t *Ticket, changes map[string]any) error {
	if _, raised := changes["severity"]; raised {
		// An incident raised to severity 1 by its owner is as urgent as
		// one opened so; still once per ticket.
		if err := s.notifySev1(tx, t); err != nil {
			return err
		}
	}
	if !actor.isStaff() {
		return nil
	}
	data := map[string]string{"ticket_id": t.ID, "subject": t.Subject}
	if move, ok := changes["status"].(map[string]string); ok && isResolved(move["to"]) {
		to, err := accountRecipient(tx, t.AccountID, t.CreatedByUserID, MailTicketSolved)
		if err != nil {
			return err
		}
		data["status"] = move["to"]
		_, err = s.notify(tx, to, notice{kind: MailTicketSolved, subjectID: t.ID, period: NewID(), data: data})
		return err
	}
	if changes["comment_added"] != true {
		return nil
	}
	to, err := accountRecipient(tx, t.AccountID, t.CreatedByUserID, MailTicketReplied)
	if err != nil {
		return err
	}
	return s.notifyBatched(tx, to, notice{kind: MailTicketReplied, subjectID: t.ID, data: data}, TicketReplyWindow)
}

// isSev1 reports whether a ticket of severity is the most severe.
func isSev1(severity *string) bool { return severity != nil && *severity == "sev_1" }

// notifySev1 tells support staff of a ticket of severity 1, opened so or
// raised to it, once per ticket.
func (s *Store) notifySev1(tx *gorm.DB, t *Ticket) error {
	if !isSev1(t.Severity) {
		return nil
	}
	to, err := staffRecipients(tx, MailTicketSev1, "")
	if err != nil {
		return err
	}
	_, err = s.notify(tx, to, notice{kind: MailTicketSev1, subjectID: t.ID, period: "created",
		data: map[string]string{"ticket_id": t.ID, "subject": t.Subject, "account_id": t.AccountID}})
	return err
}

// notifyAssigned tells a support user a ticket was given to them by
// someone else.
func (s *Store) notifyAssigned(tx *gorm.DB, actor Actor, t *Ticket, assignee string) error {
	if assignee == "" || assignee == actor.UserID {
		return nil
	}
	to, err := staffRecipients(tx, MailTicketAssigned, assignee)
	if err != nil {
		return err
	}
	by := actor.Email
	if by == "" {
		by = "the operator"
	}
	_, err = s.notify(tx, to, notice{kind: MailTicketAssigned, subjectID: t.ID, period: NewID(),
		data: map[string]string{"ticket_id": t.ID, "subject": t.Subject, "by": by}})
	return err
}

// notifyAccountChanged tells an account's users what support changed:
// the changed fields with their new values, and why when given.
func (s *Store) notifyAccountChanged(tx *gorm.DB, accountID string, changes map[string]any, reason string) error {
	to, err := accountRecipients(tx, accountID, MailAccountChanged)
	if err != nil {
		return err
	}
	data := map[string]string{"account_id": accountID}
	for k, v := range changes {
		data["change."+k] = fmt.Sprint(v)
	}
	if reason != "" {
		data["reason"] = reason
	}
	_, err = s.notify(tx, to, notice{kind: MailAccountChanged, subjectID: accountID, period: NewID(), data: data})
	return err
}

// notifyEndpointDisabled tells an account's users cloudplane disabled one
// of its webhook endpoints, once per disable.
func (s *Store) notifyEndpointDisabled(tx *gorm.DB, endpointID, reason string) error {
	var e WebhookEndpoint
	if err := tx.Select("id", "account_id", "url").Where("id = ?", endpointID).Take(&e).Error; err != nil {
		return err
	}
	to, err := accountRecipients(tx, e.AccountID, MailWebhookDisabled)
	if err != nil {
		return err
	}
	_, err = s.notify(tx, to, notice{kind: MailWebhookDisabled, subjectID: e.ID, period: NewID(),
		data: map[string]string{"endpoint_id": e.ID, "host": endpointHost(e.URL), "reason": reason}})
	return err
}

// endpointHost is what a mail names an endpoint by: its host, never its
// path or query, which may hold a secret.
func endpointHost(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "(unnamed)"
}

// notifyMembership tells a user they were added to an account (what is
// MembershipAdded) or their role in it changed (MembershipRoleChanged),
// with their role now. The members operations call it in their
// transaction.
func (s *Store) notifyMembership(tx *gorm.DB, userID, accountID, what, role string) error {
	if what != MembershipAdded && what != MembershipRoleChanged {
		return fmt.Errorf("notifyMembership: unknown change %q", what)
	}
	to, err := userRecipient(tx, userID, MailMembershipChanged)
	if err != nil {
		return err
	}
	_, err = s.notify(tx, to, notice{kind: MailMembershipChanged, subjectID: accountID, period: NewID(),
		data: map[string]string{"account_id": accountID, "what": what, "role": role}})
	return err
}

package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Mail statuses. A message is pending until the worker sends it or its
// retries run out.
const (
	MailPending = "pending"
	MailSent    = "sent"
	MailFailed  = "failed"
)

// Mail kinds: what caused a message, which picks its template.
const (
	MailPasswordReset      = "password_reset"
	MailEmailChangeConfirm = "email_change_confirm"
	MailEmailChangeNotice  = "email_change_notice"

	// Notifications (notification.go): each kind belongs to one topic a
	// user may turn off on /account.
	MailTicketReplied     = "ticket_replied"
	MailTicketSolved      = "ticket_solved"
	MailWebhookFailing    = "webhook_failing"
	MailWebhookDisabled   = "webhook_disabled"
	MailAPIKeyExpiring    = "api_key_expiring"
	MailAccountChanged    = "account_changed"
	MailMembershipChanged = "membership_changed"
	MailTicketSev1        = "ticket_sev1"
	MailTicketAssigned    = "ticket_assigned"
	MailBudgetThreshold   = "budget_threshold"

	// An owner's invitation to join their account (invitation.go).
	MailInvitation = "invitation"

	// A password sign-in from a browser the user had not signed in from
	// (session_list.go, newBrowserMail).
	MailNewSignIn = "new_sign_in"

	// A second factor or passkey removed from the user, by themselves or
	// the operator (sign_in_end.go, factorRemovedMail).
	MailFactorRemoved = "factor_removed"
)

// mailSubjects are the subjects of each kind, stored with the message so
// the mail log shows them; the product's name leads, so a recipient sees
// who wrote.
var mailSubjects = map[string]string{
	MailPasswordReset:      "cloudplane: reset your password",
	MailEmailChangeConfirm: "cloudplane: confirm your new email address",
	MailEmailChangeNotice:  "cloudplane: your email address is being changed",

	MailTicketReplied:     "cloudplane: support replied to your ticket",
	MailTicketSolved:      "cloudplane: support solved your ticket",
	MailWebhookFailing:    "cloudplane: a webhook endpoint has been failing for an hour",
	MailWebhookDisabled:   "cloudplane: a webhook endpoint was disabled",
	MailAPIKeyExpiring:    "cloudplane: an API key of yours expires within 7 days",
	MailAccountChanged:    "cloudplane: support changed your account",
	MailMembershipChanged: "cloudplane: your access to an account changed",
	MailTicketSev1:        "cloudplane: new severity 1 ticket",
	MailTicketAssigned:    "cloudplane: a ticket was assigned to you",
	MailBudgetThreshold:   "cloudplane: your account reached a budget threshold",

	// An owner's invitation to join their account (invitation.go).
	MailInvitation: "cloudplane: you are invited to join an account",

	MailNewSignIn:     "cloudplane: new sign-in to cloudplane",
	MailFactorRemoved: "cloudplane: a way to sign in was removed from your account",
}

// MailMessage is one email in the outbox. Data holds what its template
// needs (a link's token, an address), rendered when it is sent and
// cleared once it is sent or given up, so a copy of the database opens no
// link that has gone out. While a worker sends it, it holds a lease.
type MailMessage struct {
	ID            string            `gorm:"primaryKey;size:32"`
	Kind          string            `gorm:"size:32;not null"`
	Recipient     string            `gorm:"size:320;not null"`
	Subject       string            `gorm:"size:256;not null"`
	Data          map[string]string `gorm:"serializer:json;not null"`
	Status        string            `gorm:"size:16;not null;index:idx_mail_messages_due,priority:1"`
	NextAttemptAt time.Time         `gorm:"not null;index:idx_mail_messages_due,priority:2"`
	Attempts      int               `gorm:"not null"`
	LeaseOwner    string            `gorm:"size:32;not null"`
	LeaseUntil    *time.Time
	LastError     string     `gorm:"size:1024;not null"`
	CreatedAt     time.Time  `gorm:"not null;autoCreateTime:false;index"`
	UpdatedAt     time.Time  `gorm:"not null;autoUpdateTime:false"`
	SentAt        *time.Time // when the server accepted it
}

// enqueueMail writes a message to the outbox in tx, the transaction of
// the change that causes it; the worker is woken once tx commits (the
// caller calls s.wakeMail after the write).
func (s *Store) enqueueMail(tx *gorm.DB, kind, recipient string, data map[string]string) error {
	return s.enqueueMailAt(tx, NewID(), kind, recipient, data, time.Time{})
}

// enqueueMailAt is enqueueMail for a message with the given id, not sent
// before due (at once when zero): a batched notification waits for the
// end of its window.
func (s *Store) enqueueMailAt(tx *gorm.DB, id, kind, recipient string, data map[string]string, due time.Time) error {
	now := s.Now()
	if data == nil {
		data = map[string]string{}
	}
	if due.IsZero() {
		due = now
	}
	m := MailMessage{ID: id, Kind: kind, Recipient: recipient, Subject: mailSubjects[kind], Data: data,
		Status: MailPending, NextAttemptAt: dbTime(due), CreatedAt: now, UpdatedAt: now}
	return tx.Create(&m).Error
}

// OnMail registers the function called after a transaction that queued
// mail commits, so the mail worker starts at once instead of at its next
// poll.
func (s *Store) OnMail(wake func()) { s.mailWake.Store(&wake) }

// wakeMail calls the function OnMail registered, if any.
func (s *Store) wakeMail() {
	if f := s.mailWake.Load(); f != nil {
		(*f)()
	}
}

// MailJob is a claimed message with what rendering and sending it need.
type MailJob struct {
	ID        string
	Kind      string
	Recipient string
	Subject   string
	Data      map[string]string
	Attempts  int // attempts made before this one
}

// mailJob turns a row into a job.
func (m MailMessage) job() MailJob {
	return MailJob{ID: m.ID, Kind: m.Kind, Recipient: m.Recipient, Subject: m.Subject, Data: m.Data, Attempts: m.Attempts}
}

// MailLogEntry is a message as the mail log shows it to support staff:
// never its data, which may hold a link.
type MailLogEntry struct {
	ID, Kind, Recipient, Subject, Status, LastError string
	Attempts                                        int
	CreatedAt, UpdatedAt, NextAttemptAt             time.Time
	SentAt                                          *time.Time
}

// MailLogPage is the number of messages one page of the mail log shows.
const MailLogPage = 100

// MailLog lists messages newest first, at most MailLogPage, for support
// staff and the operator; status filters when not empty, and before (the
// id of the last message of a previous page) pages on. Others get
// CodeForbidden.
func (s *Store) MailLog(ctx context.Context, actor Actor, status, before string) ([]MailLogEntry, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff can read the mail log")
	}
	q := s.read(ctx).Model(&MailMessage{})
	if status != "" {
		q = q.Where("status = ?", status)
	}
	if before != "" {
		var last MailMessage
		if err := s.read(ctx).Select("id, created_at").Where("id = ?", before).Take(&last).Error; err != nil {
			return nil, translate(err)
		}
		q = q.Where("created_at < ? OR (created_at = ? AND id < ?)", last.CreatedAt, last.CreatedAt, last.ID)
	}
	var rows []MailMessage
	if err := q.Omit("data").Order("created_at DESC, id DESC").Limit(MailLogPage).Find(&rows).Error; err != nil {
		return nil, translate(err)
	}
	out := make([]MailLogEntry, len(rows))
	for i, m := range rows {
		out[i] = MailLogEntry{ID: m.ID, Kind: m.Kind, Recipient: m.Recipient, Subject: m.Subject, Status: m.Status,
			LastError: m.LastError, Attempts: m.Attempts, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
			NextAttemptAt: m.NextAttemptAt, SentAt: m.SentAt}
	}
	return out, nil
}

package models

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"unicode/utf8"

	"gorm.io/gorm"

	"cloudplane/models/database"
)

// Text limits of tickets.
const (
	MaxTicketSubject = 200
	MaxTicketText    = 65536 // description and comments, in characters
)

// CreateTicketInput is a new ticket, as the API's createTicket body and the
// dashboard's form give it.
type CreateTicketInput struct {
	Subject     string  `json:"subject"`
	Description string  `json:"description"`
	Type        string  `json:"type"`
	Severity    *string `json:"severity"`
	IP          *string `json:"ip"`
	InstanceID  *string `json:"instance_id"`
	ClusterID   *string `json:"cluster_id"`
}

// Validate checks the input and normalises it: text trimmed, empty
// optional fields dropped, the IP address in canonical form. Severity is
// required for incidents and refused for service requests.
func (in *CreateTicketInput) Validate() error {
	var f FieldErrors
	in.Subject = strings.TrimSpace(in.Subject)
	checkText(&f, "subject", in.Subject, MaxTicketSubject, false)
	checkText(&f, "description", in.Description, MaxTicketText, true)
	in.Severity, in.IP = optional(in.Severity), optional(in.IP)
	in.InstanceID, in.ClusterID = optional(in.InstanceID), optional(in.ClusterID)
	switch in.Type {
	case TicketIncident:
		if in.Severity == nil {
			f.Add("severity", "is required for incidents (sev_1, sev_2 or sev_3)")
		} else {
			checkSeverity(&f, *in.Severity)
		}
	case TicketServiceRequest:
		if in.Severity != nil {
			f.Add("severity", "must not be given for service requests")
		}
	case "":
		f.Add("type", "is required (incident or service_request)")
	default:
		f.Add("type", fmt.Sprintf("must be incident or service_request, not %q", in.Type))
	}
	if in.IP != nil {
		if addr, err := netip.ParseAddr(*in.IP); err != nil || addr.Zone() != "" {
			f.Add("ip", fmt.Sprintf("%q is not an IP address", *in.IP))
		} else {
			canonical := addr.String()
			in.IP = &canonical
		}
	}
	if in.InstanceID != nil && !IsID(*in.InstanceID) {
		f.Add("instance_id", "must be an instance id (32 lowercase hex characters)")
	}
	if in.ClusterID != nil && !IsID(*in.ClusterID) {
		f.Add("cluster_id", "must be a cluster id (32 lowercase hex characters)")
	}
	return f.Err()
}

// checkText checks required free text: present, within the text rule and
// at most max characters.
func checkText(f *FieldErrors, field, s string, max int, multiline bool) {
	if strings.TrimSpace(s) == "" {
		f.Add(field, "is required")
	} else if msg := textProblem(s, multiline); msg != "" {
		f.Add(field, msg)
	} else if n := utf8.RuneCountInString(s); n > max {
		f.Add(field, fmt.Sprintf("must be at most %d characters, got %d", max, n))
	}
}

func checkSeverity(f *FieldErrors, sev string) {
	if !slices.Contains(TicketSeverities, sev) {
		f.Add("severity", fmt.Sprintf("must be sev_1, sev_2 or sev_3, not %q", sev))
	}
}

// optional turns a blank optional value into an absent one, so a form's
// empty field and a JSON null mean the same.
func optional(p *string) *string {
	if p == nil || strings.TrimSpace(*p) == "" {
		return nil
	}
	v := strings.TrimSpace(*p)
	return &v
}

// CreateTicket opens a ticket in the owner's account with status new and
// the description as its first comment. In the same transaction it writes
// the ticket.created webhook event (with a delivery for each enabled
// endpoint) and one audit event. An instance_id must name an instance of
// the account.
func (s *Store) CreateTicket(ctx context.Context, actor Actor, in CreateTicketInput) (*Ticket, error) {
	t, err := createInAccount(ctx, s, actor, in.Validate, func(accountID, id string) (*Ticket, accountCreate, error) {
		now := s.Now()
		t := &Ticket{ID: id, AccountID: accountID, CreatedByUserID: actor.UserID,
			Subject: in.Subject, Description: in.Description, RequestType: in.Type, Severity: in.Severity,
			Status: TicketNew, InstanceIP: in.IP, InstanceID: in.InstanceID, ClusterID: in.ClusterID,
			Source: ticketSource(actor), CreatedAt: now, UpdatedAt: now, WaitingSince: &now}
		var check func(tx *gorm.DB, _ *Account) error
		if in.InstanceID != nil {
			check = func(tx *gorm.DB, _ *Account) error { return instanceExists(tx, accountID, *in.InstanceID) }
		}
		var alone func(auditRow) (database.Statement, error)
		if !isSev1(t.Severity) { // a sev_1 tells the staff by mail too
			alone = func(event auditRow) (database.Statement, error) { return createTicketAlone(actor, t, event) }
		}
		return t, accountCreate{resource: "ticket", check: check, alone: alone,
			then: func(tx *gorm.DB) error {
				if err := s.addComment(tx, actor, t, 0, in.Description); err != nil {
					return err
				}
				if err := s.notifySev1(tx, t); err != nil {
					return err
				}
				return s.enqueueTicketEvent(tx, EventTicketCreated, t)
			},
			details: map[string]any{"subject": t.Subject, "type": t.RequestType, "severity": t.Severity}}, nil
	})
	if err != nil {
		return nil, err
	}
	s.wake()
	if isSev1(t.Severity) {
		// Only a sev_1 queues mail (notifySev1). Waking the mail
		// dispatcher for every ticket cost a claim's transaction each:
		// at 400 tickets/s on PostgreSQL, as many round trips as the
		// tickets' own.
		s.wakeMail()
	}
	return t, nil
}

func ticketSource(actor Actor) string {
	if actor.APIKeyID != "" {
		return TicketSourceAPI
	}
	return TicketSourceDashboard
}

func instanceExists(tx *gorm.DB, accountID, id string) error {
	var n int64
	if err := tx.Model(&Instance{}).Where("id = ? AND account_id = ?", id, accountID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return InvalidField("instance_id", fmt.Sprintf("no instance %q in this account", id))
	}
	return nil
}

// addComment adds a comment to t, and to t in memory the counts the
// database's trigger adds to its row.
func (s *Store) addComment(tx *gorm.DB, actor Actor, t *Ticket, seq int, body string) error {
	c := TicketComment{AccountID: t.AccountID, ID: NewID(), TicketID: t.ID, Seq: seq, Author: commentAuthor(actor), Body: body, CreatedAt: s.Now()}
	if actor.UserID != "" {
		c.AuthorUserID = &actor.UserID
	}
	err := tx.Create(&c).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return &Error{Code: CodeInternal, Retryable: true, Message: "A concurrent comment was added", Suggestion: "Retry the request"}
	}
	if err != nil {
		return err
	}
	t.CommentRows++
	t.CommentBytes += int64(len(body))
	if seq == 0 {
		t.DescriptionAuthor = &c.Author
	}
	return nil
}

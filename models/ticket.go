package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Ticket statuses. A ticket starts new; support moves it between the open
// statuses; solved and closed are terminal, except that a solved ticket
// may be reopened or closed. Nothing changes a closed ticket.
const (
	TicketNew     = "new"
	TicketOpen    = "open"
	TicketPending = "pending"
	TicketOnHold  = "on_hold"
	TicketSolved  = "solved"
	TicketClosed  = "closed"
)

// TicketStatuses lists every status in the order a ticket usually takes.
var TicketStatuses = []string{TicketNew, TicketOpen, TicketPending, TicketOnHold, TicketSolved, TicketClosed}

// ticketMoves is the status machine: the statuses each status may move to.
// Any open status may be solved or closed outright (the product's ticket
// closure); a solved ticket may be reopened or closed; closed is final.
var ticketMoves = map[string][]string{
	TicketNew:     {TicketOpen, TicketPending, TicketOnHold, TicketSolved, TicketClosed},
	TicketOpen:    {TicketPending, TicketOnHold, TicketSolved, TicketClosed},
	TicketPending: {TicketOpen, TicketOnHold, TicketSolved, TicketClosed},
	TicketOnHold:  {TicketOpen, TicketPending, TicketSolved, TicketClosed},
	TicketSolved:  {TicketOpen, TicketClosed},
	TicketClosed:  {},
}

// TicketMoves returns the statuses a ticket in status from may move to
// (the dashboard offers exactly these).
func TicketMoves(from string) []string { return ticketMoves[from] }

// checkTicketMove explains why a ticket may not move from one status to
// another, as a field error on status, or returns nil.
func checkTicketMove(from, to string) error {
	if _, known := ticketMoves[to]; !known {
		return InvalidField("status", fmt.Sprintf("unknown status %q; use one of new, open, pending, on_hold, solved, closed", to))
	}
	if from == TicketClosed {
		return InvalidField("status", "the ticket is closed and cannot change; open a new ticket")
	}
	for _, allowed := range ticketMoves[from] {
		if allowed == to {
			return nil
		}
	}
	return InvalidField("status", fmt.Sprintf("a ticket cannot move from %s to %s", from, to))
}

// isResolved reports whether status ends the ticket's work.
func isResolved(status string) bool { return status == TicketSolved || status == TicketClosed }

// UnresolvedTicketStatuses are the statuses of tickets support still works
// on, in TicketStatuses order: the support queue's default view.
func UnresolvedTicketStatuses() []string {
	var out []string
	for _, s := range TicketStatuses {
		if !isResolved(s) {
			out = append(out, s)
		}
	}
	return out
}

// APITicketStatus is how the API, which knows fewer statuses, shows one:
// new reads open and closed reads solved.
func APITicketStatus(status string) string {
	switch status {
	case TicketNew:
		return TicketOpen
	case TicketClosed:
		return TicketSolved
	}
	return status
}

// Ticket request types and severities, as the API names them.
const (
	TicketIncident       = "incident"
	TicketServiceRequest = "service_request"
	TicketAutomatedEvent = "automated_event" // listed by the API, never created here
)

// TicketSeverities are the severities an incident can have.
var TicketSeverities = []string{"sev_1", "sev_2", "sev_3"}

// Ticket sources: where a ticket was opened.
const (
	TicketSourceAPI       = "api"
	TicketSourceDashboard = "dashboard"
)

// Ticket is a support request of one account. Tickets are keyed by
// account, then id (migration 0014), so an account's are stored together.
type Ticket struct {
	AccountID       string     `gorm:"primaryKey;size:32;not null;index:idx_tickets_account_created,priority:1;index:idx_tickets_account_updated,priority:1;index:idx_tickets_search,priority:1;index:idx_tickets_account_number,priority:1"`
	ID              string     `gorm:"primaryKey;size:32;not null;uniqueIndex:idx_tickets_id;index:idx_tickets_account_number,priority:2,expression:substr(id\\, 25);index:idx_tickets_number,expression:substr(id\\, 25)"`
	CreatedByUserID string     `gorm:"size:32;not null"`
	Subject         string     `gorm:"size:200;not null;index:idx_tickets_search,expression:lower(subject),priority:2;index:idx_tickets_subject,expression:lower(subject)"`
	Description     string     `gorm:"not null"`
	RequestType     string     `gorm:"size:32;not null"`
	Severity        *string    `gorm:"size:8"`
	Status          string     `gorm:"size:16;not null;index;index:idx_tickets_status_waiting,priority:1"`
	InstanceIP      *string    `gorm:"size:45"`
	InstanceID      *string    `gorm:"size:32"`
	ClusterID       *string    `gorm:"size:32"`
	Source          string     `gorm:"size:16;not null"`
	CreatedAt       time.Time  `gorm:"not null;autoCreateTime:false;index:idx_tickets_account_created,priority:2;index:idx_tickets_created"`
	UpdatedAt       time.Time  `gorm:"not null;autoUpdateTime:false;index:idx_tickets_account_updated,priority:2;index:idx_tickets_updated"`
	ResolvedAt      *time.Time // when it last became solved; nil while open
	AssigneeUserID  *string    `gorm:"size:32;index:idx_tickets_assignee"` // the support user working it
	// WaitingSince is since when the customer waits for support: their
	// first message after support's last reply (the ticket's creation when
	// support never replied); nil while support spoke last (migration 0027).
	WaitingSince *time.Time `gorm:"index:idx_tickets_status_waiting,priority:2"`

	// What the ticket's comments hold, kept by the database's trigger on
	// ticket_comments (migration 0012) and never written from Go, so a
	// list reads them with the ticket instead of counting the comments.
	CommentRows       int     `gorm:"->;not null;default:0"` // the description included
	CommentBytes      int64   `gorm:"->;not null;default:0"` // of every comment's body
	DescriptionAuthor *string `gorm:"->;size:254"`           // the requester
}

// TicketComment is one message on a ticket. The description is the first.
//
// Comments are keyed by account, ticket and seq, the order a ticket list
// reads them (migration 0013); AccountID is the ticket's.
type TicketComment struct {
	AccountID    string    `gorm:"primaryKey;size:32;not null"`
	TicketID     string    `gorm:"primaryKey;size:32;not null;uniqueIndex:idx_ticket_comments_seq,priority:1"`
	Seq          int       `gorm:"primaryKey;autoIncrement:false;not null;uniqueIndex:idx_ticket_comments_seq,priority:2"`
	ID           string    `gorm:"size:32;not null;uniqueIndex:idx_ticket_comments_id"`
	AuthorUserID *string   `gorm:"size:32"`
	Author       string    `gorm:"size:254;not null"` // the owner's email, or "support"
	Body         string    `gorm:"not null"`
	CreatedAt    time.Time `gorm:"not null;autoCreateTime:false"`
}

// TicketDetail is a ticket with its comments, oldest first.
type TicketDetail struct {
	Ticket
	Comments []TicketComment
}

// Summary is the ticket as a list shows it.
func (d TicketDetail) Summary() TicketSummary {
	sum := TicketSummary{Ticket: d.Ticket}
	if len(d.Comments) > 0 { // the description is the first comment
		sum.Requester, sum.CommentCount = d.Comments[0].Author, len(d.Comments)-1
	}
	return sum
}

// commentAuthor is how a comment names its author: owners by email; staff
// by role alone, so customers never learn who in support answered.
func commentAuthor(actor Actor) string {
	if actor.isStaff() {
		return "support"
	}
	return actor.Email
}

func ticketNotFound(id string) error {
	return &Error{Code: CodeTicketNotFound, Message: fmt.Sprintf("Ticket %q not found", id),
		Suggestion: "Check the ticket ID and try again."}
}

// findTicket reads a ticket the actor may see, locked for update when tx is
// a write. Staff see every account's; owners only theirs.
func findTicket(tx *gorm.DB, actor Actor, id string, lock bool) (*Ticket, error) {
	if !IsID(id) {
		return nil, ticketNotFound(id)
	}
	q := tx.Where("id = ?", id)
	if !actor.isStaff() {
		accountID, err := actor.ownAccount()
		if err != nil {
			return nil, err
		}
		q = q.Where("account_id = ?", accountID)
	}
	if lock {
		q = q.Clauses(forUpdate)
	}
	var t Ticket
	err := q.Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ticketNotFound(id)
	}
	return &t, err
}

// Ticket returns one ticket with its comments. Owners read their account's
// tickets; support staff read any. Another account's ticket, or an id that
// does not exist, is CodeTicketNotFound.
func (s *Store) Ticket(ctx context.Context, actor Actor, id string) (*TicketDetail, error) {
	t, err := findTicket(s.read(ctx), actor, id, false)
	if err != nil {
		return nil, err
	}
	details, err := s.withComments(ctx, []Ticket{*t})
	if err != nil {
		return nil, err
	}
	return &details[0], nil
}

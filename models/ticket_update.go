package models

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// UpdateTicketInput changes a ticket: any of a new status, a new severity
// and a comment. Nil fields stay as they are.
type UpdateTicketInput struct {
	Status   *string             `json:"status"`
	Severity *string             `json:"severity"`
	Comment  *TicketCommentInput `json:"comment"`
}

// TicketCommentInput is a new comment.
type TicketCommentInput struct {
	Body string `json:"body"`
}

// Validate checks the values on their own; what the ticket allows (the
// status machine, severity only for incidents) is checked against it.
func (in *UpdateTicketInput) Validate() error {
	if in.Status == nil && in.Severity == nil && in.Comment == nil {
		return Errorf(CodeInvalidParameters, "Nothing to change: give status, severity or comment")
	}
	var f FieldErrors
	if in.Status != nil {
		*in.Status = strings.TrimSpace(*in.Status)
		if _, known := ticketMoves[*in.Status]; !known {
			f.Add("status", fmt.Sprintf("unknown status %q", *in.Status))
		}
	}
	if in.Severity != nil {
		checkSeverity(&f, *in.Severity)
	}
	if in.Comment != nil {
		checkText(&f, "comment.body", in.Comment.Body, MaxTicketText, true)
	}
	return f.Err()
}

// UpdateTicket applies a change to a ticket. Owners change their own
// account's tickets and may only set the status to solved, or reopen a
// solved ticket (status open); support staff and the operator may make any
// move the status machine allows. A move it does not allow, any change to
// a closed ticket, or a severity on a service request is
// CodeInvalidParameters naming the field, and changes nothing. A status
// change writes ticket.status_changed (still open) or ticket.resolved
// (solved or closed) in the same transaction, with one audit event for the
// whole change. Setting the status a ticket already has is not a move: the
// rest of the input still applies. Support's first comment on a new ticket
// moves it to open when the input names no status. A comment beyond
// MaxTicketComments or MaxTicketTextBytes is CodeInvalidParameters on
// "comment" or "comment.body".
func (s *Store) UpdateTicket(ctx context.Context, actor Actor, id string, in UpdateTicketInput) (*Ticket, error) {
	if !actor.isStaff() {
		if _, err := actor.operates(); err != nil {
			return nil, err
		}
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if !actor.isStaff() && in.Status != nil && *in.Status != TicketSolved && *in.Status != TicketOpen {
		return nil, InvalidField("status", "must be solved, or open to reopen a solved ticket; support staff move tickets between the other statuses")
	}
	var out *Ticket
	var event bool
	err := s.write(ctx, func(tx *gorm.DB) error {
		t, err := findTicket(tx, actor, id, true)
		if err != nil {
			return err
		}
		out = t
		event, err = s.changeTicket(tx, actor, t, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.wakeMail()
	if event {
		s.wake()
	}
	return out, nil
}

// changeTicket applies in to t, locked in tx: the row, its webhook event,
// the mail to the other side and one audit event. It reports whether it
// wrote a webhook event.
func (s *Store) changeTicket(tx *gorm.DB, actor Actor, t *Ticket, in UpdateTicketInput) (bool, error) {
	changes, err := s.applyTicketChange(tx, actor, t, in)
	if err != nil || len(changes) == 0 {
		return false, err
	}
	if err := tx.Select("status", "severity", "resolved_at", "updated_at", "waiting_since").Updates(t).Error; err != nil {
		return false, err
	}
	event := false
	if move, ok := changes["status"].(map[string]string); ok {
		event = true
		typ := EventTicketStatusChanged
		if isResolved(move["to"]) {
			typ = EventTicketResolved
		}
		if err := s.enqueueTicketEvent(tx, typ, t); err != nil {
			return false, err
		}
	}
	if err := s.notifyTicketUpdate(tx, actor, t, changes); err != nil {
		return false, err
	}
	return event, s.audit(tx, actor, t.AccountID, "ticket", "updated", []string{lrn("ticket", t.ID)}, changes)
}

// applyTicketChange changes t in memory (and adds the comment) and returns
// what changed, for the audit event; nothing when the input changes nothing.
func (s *Store) applyTicketChange(tx *gorm.DB, actor Actor, t *Ticket, in UpdateTicketInput) (map[string]any, error) {
	if t.Status == TicketClosed {
		field := "severity"
		switch {
		case in.Status != nil:
			field = "status"
		case in.Comment != nil:
			field = "comment"
		}
		return nil, InvalidField(field, "the ticket is closed and cannot change; open a new ticket")
	}
	changes := map[string]any{}
	now := s.Now()
	if in.Comment != nil && in.Status == nil && actor.isStaff() && t.Status == TicketNew {
		open := TicketOpen // support's first reply opens a new ticket
		in.Status = &open
	}
	if in.Severity != nil {
		if t.RequestType != TicketIncident {
			return nil, InvalidField("severity", "only incidents have a severity")
		}
		if t.Severity == nil || *t.Severity != *in.Severity {
			changes["severity"] = map[string]any{"from": t.Severity, "to": *in.Severity}
			t.Severity = in.Severity
		}
	}
	move := in.Status != nil && *in.Status != t.Status
	if move {
		if err := checkTicketMove(t.Status, *in.Status); err != nil {
			return nil, err
		}
		if !actor.isStaff() && *in.Status == TicketOpen && t.Status != TicketSolved {
			return nil, InvalidField("status", "only a solved ticket can be reopened")
		}
	}
	// The comment first, then the move, so the thread reads as the sender
	// acted: "fixed it", then solved.
	if in.Comment != nil {
		seq, err := checkCommentFits(tx, t, commentAuthor(actor), in.Comment.Body)
		if err != nil {
			return nil, err
		}
		if err := s.addComment(tx, actor, t, seq, in.Comment.Body); err != nil {
			return nil, err
		}
		changes["comment_added"] = true
		switch {
		case actor.isStaff():
			t.WaitingSince = nil
		case t.WaitingSince == nil:
			t.WaitingSince = &now
		}
	}
	if move {
		if !actor.isStaff() && !isResolved(*in.Status) && t.WaitingSince == nil {
			t.WaitingSince = &now // reopened: the customer waits again
		}
		changes["status"] = map[string]string{"from": t.Status, "to": *in.Status}
		if _, err := s.recordActivity(tx, actor, t.ID, ActivityStatus, &t.Status, in.Status, nil); err != nil {
			return nil, err
		}
		switch {
		case *in.Status == TicketSolved:
			t.ResolvedAt = &now
		case !isResolved(*in.Status):
			t.ResolvedAt = nil
		}
		t.Status = *in.Status
	}
	if len(changes) > 0 {
		t.UpdatedAt = now
	}
	return changes, nil
}

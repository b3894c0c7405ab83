package models

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"
)

// Kinds of message the support composer sends.
const (
	ReplyPublic = "reply" // a comment the customer reads
	ReplyNote   = "note"  // an internal note only staff read
)

// ReplyStatuses are the statuses the composer may set with its message:
// none (""), pending (waiting on the customer) and solved.
var ReplyStatuses = []string{"", TicketPending, TicketSolved}

// TicketReplyInput is one send of the support composer: a reply or an
// internal note, and optionally the status the ticket moves to with it.
type TicketReplyInput struct {
	Kind   string // ReplyPublic or ReplyNote
	Body   string
	Status string // "" keeps the status; else one of ReplyStatuses
}

// Validate checks the values on their own; the status machine is checked
// against the ticket.
func (in *TicketReplyInput) Validate() error {
	var f FieldErrors
	if in.Kind != ReplyPublic && in.Kind != ReplyNote {
		f.Add("kind", fmt.Sprintf("must be reply or note, not %q", in.Kind))
	}
	checkText(&f, "body", in.Body, MaxTicketText, true)
	if !slices.Contains(ReplyStatuses, in.Status) {
		f.Add("status", fmt.Sprintf("must be pending or solved, not %q", in.Status))
	}
	return f.Err()
}

// ReplyToTicket sends what support wrote in the composer, in one
// transaction: a reply (as UpdateTicket's comment, so the first reply
// opens a new ticket) or an internal note (as AddTicketNote), then the
// status change, with their activity, webhook event, mail and audit
// events. A refused status change saves no message. Staff only.
func (s *Store) ReplyToTicket(ctx context.Context, actor Actor, id string, in TicketReplyInput) (*Ticket, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff use the composer; owners comment")
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var status *string
	if in.Status != "" {
		status = &in.Status
	}
	var out *Ticket
	var event bool
	err := s.write(ctx, func(tx *gorm.DB) error {
		t, err := findTicket(tx, actor, id, true)
		if err != nil {
			return err
		}
		out = t
		if in.Kind == ReplyPublic {
			event, err = s.changeTicket(tx, actor, t, UpdateTicketInput{Status: status,
				Comment: &TicketCommentInput{Body: in.Body}})
			return renameField(err, "comment.body", "body")
		}
		if _, err := s.addNote(tx, actor, t, in.Body); err != nil {
			return renameField(err, "note", "body")
		}
		if status != nil { // after the note, as the thread reads
			event, err = s.changeTicket(tx, actor, t, UpdateTicketInput{Status: status})
		}
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

// renameField moves a field's message of a domain error to another field
// name, for an input that names it differently.
func renameField(err error, from, to string) error {
	e, ok := AsError(err)
	if !ok || e.Fields == nil {
		return err
	}
	if msg, named := e.Fields[from]; named {
		c := *e
		c.Fields = map[string]string{}
		for k, v := range e.Fields {
			c.Fields[k] = v
		}
		delete(c.Fields, from)
		c.Fields[to] = msg
		return &c
	}
	return err
}

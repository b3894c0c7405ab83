package models

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// MaxTicketNotes is how many internal notes a ticket takes.
const MaxTicketNotes = 500

// AssignTicketInput gives a ticket to a support user, or to nobody.
type AssignTicketInput struct {
	// Assignee is an active support user's id; "" unassigns.
	Assignee string
	// From, when set, is the assignee the agent saw ("" for nobody). If
	// someone changed it meanwhile the assignment is refused with
	// CodeConflict, so two agents taking the same ticket at once cannot
	// both believe they have it.
	From *string
}

// AssignTicket gives a ticket to a support user or unassigns it. Staff
// only (owners get CodeForbidden). The ticket's row lock orders
// concurrent assignments; each change appends an assignment entry to the
// thread and one audit event in the same transaction. Assigning the
// current assignee changes nothing. A closed ticket, or an assignee who
// is not an active support user, is CodeInvalidParameters on "assignee".
func (s *Store) AssignTicket(ctx context.Context, actor Actor, id string, in AssignTicketInput) (*Ticket, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff assign tickets")
	}
	if in.Assignee != "" && !IsID(in.Assignee) {
		return nil, InvalidField("assignee", "must be a support user's id, or empty to unassign")
	}
	var out *Ticket
	err := s.write(ctx, func(tx *gorm.DB) error {
		t, err := findTicket(tx, actor, id, true)
		if err != nil {
			return err
		}
		out = t
		current := ""
		if t.AssigneeUserID != nil {
			current = *t.AssigneeUserID
		}
		from, err := userEmail(tx, current)
		if err != nil {
			return err
		}
		if in.From != nil && *in.From != current {
			return assignedMeanwhile(from)
		}
		if in.Assignee == current {
			return nil
		}
		if t.Status == TicketClosed {
			return InvalidField("assignee", "the ticket is closed and cannot change")
		}
		to, err := assigneeEmail(tx, in.Assignee)
		if err != nil {
			return err
		}
		t.AssigneeUserID = optional(&in.Assignee)
		if err := tx.Model(&Ticket{}).Where("id = ?", t.ID).Update("assignee_user_id", t.AssigneeUserID).Error; err != nil {
			return err
		}
		if _, err := s.recordActivity(tx, actor, t.ID, ActivityAssignment, from, to, nil); err != nil {
			return err
		}
		if err := s.notifyAssigned(tx, actor, t, in.Assignee); err != nil {
			return err
		}
		// User LRNs rather than emails: the owner reads this account's log.
		return s.audit(tx, actor, t.AccountID, "ticket", "assigned", []string{lrn("ticket", t.ID)},
			map[string]any{"from": userLRN(current), "to": userLRN(in.Assignee)})
	})
	if err != nil {
		return nil, err
	}
	s.wakeMail()
	return out, nil
}

// assigneeEmail is the email of the active support user with the id, nil
// for "" (nobody).
func assigneeEmail(tx *gorm.DB, userID string) (*string, error) {
	if userID == "" {
		return nil, nil
	}
	var u User
	err := tx.Where("id = ? AND role = ?", userID, RoleSupport).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, InvalidField("assignee", "is not a support user")
	}
	if err != nil {
		return nil, err
	}
	if u.Status != UserActive {
		return nil, InvalidField("assignee", fmt.Sprintf("%s is deactivated", u.Email))
	}
	return &u.Email, nil
}

// userEmail is the email of any user, nil for "" (nobody).
func userEmail(tx *gorm.DB, userID string) (*string, error) {
	if userID == "" {
		return nil, nil
	}
	var email string
	err := tx.Model(&User{}).Where("id = ?", userID).Select("email").Scan(&email).Error
	return &email, err
}

func assignedMeanwhile(now *string) error {
	who := "nobody"
	if now != nil {
		who = *now
	}
	return &Error{Code: CodeConflict, Message: "The ticket's assignee changed meanwhile: it is now assigned to " + who,
		Suggestion: "Reload the ticket and decide again"}
}

func userLRN(id string) *string {
	if id == "" {
		return nil
	}
	l := lrn("user", id)
	return &l
}

// AddTicketNote adds an internal note to a ticket: staff only, never shown
// to the owner, never in the API's or the webhooks' tickets, and not a
// change of the ticket (its updated_at stays). It is audited outside the
// account's log, which the owner reads, and names the ticket there.
func (s *Store) AddTicketNote(ctx context.Context, actor Actor, id, body string) (*TicketActivity, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff write internal notes")
	}
	var fe FieldErrors
	checkText(&fe, "note", body, MaxTicketText, true)
	if err := fe.Err(); err != nil {
		return nil, err
	}
	var out *TicketActivity
	err := s.write(ctx, func(tx *gorm.DB) error {
		t, err := findTicket(tx, actor, id, true)
		if err != nil {
			return err
		}
		out, err = s.addNote(tx, actor, t, body)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// addNote adds an internal note to t, locked in tx, with its audit event.
func (s *Store) addNote(tx *gorm.DB, actor Actor, t *Ticket, body string) (*TicketActivity, error) {
	var n int64
	if err := tx.Model(&TicketActivity{}).Where("ticket_id = ? AND kind = ?", t.ID, ActivityNote).Count(&n).Error; err != nil {
		return nil, err
	}
	if n >= MaxTicketNotes {
		return nil, InvalidField("note", fmt.Sprintf("the ticket has reached its %d internal notes", MaxTicketNotes))
	}
	a, err := s.recordActivity(tx, actor, t.ID, ActivityNote, nil, nil, &body)
	if err != nil {
		return nil, err
	}
	return a, s.audit(tx, actor, "", "ticket", "note_added", []string{lrn("ticket", t.ID)},
		map[string]any{"account_id": t.AccountID, "note_id": a.ID})
}

// SupportUsers lists the active support users, by email: whom a ticket
// can be assigned to. Staff only.
func (s *Store) SupportUsers(ctx context.Context, actor Actor) ([]User, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff list support users")
	}
	var users []User
	err := s.read(ctx).Select("id", "email", "role", "status").Where("role = ? AND status = ?", RoleSupport, UserActive).
		Order("email").Find(&users).Error
	return users, err
}

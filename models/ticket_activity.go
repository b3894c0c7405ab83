package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Kinds of ticket activity.
const (
	ActivityStatus     = "status"     // from and to are statuses
	ActivityAssignment = "assignment" // from and to are assignees' emails, nil for nobody
	ActivityNote       = "note"       // an internal note: staff only
)

// TicketActivity is an entry of a ticket's thread other than a comment: a
// status or assignment change, which the owner sees too, or an internal
// note, which only staff ever read. Entries are numbered per ticket, in
// the order they were made, under the ticket's row lock.
type TicketActivity struct {
	ID          string    `gorm:"primaryKey;size:32"`
	TicketID    string    `gorm:"size:32;not null;uniqueIndex:idx_ticket_activities_seq,priority:1"`
	Seq         int       `gorm:"not null;uniqueIndex:idx_ticket_activities_seq,priority:2"`
	Kind        string    `gorm:"size:16;not null"`
	ActorUserID *string   `gorm:"size:32"`
	Actor       string    `gorm:"size:254;not null"` // the user's email, or "operator"
	ByStaff     bool      `gorm:"not null"`          // owners read such an actor as "Support"
	FromValue   *string   `gorm:"size:254"`
	ToValue     *string   `gorm:"size:254"`
	Body        *string   // a note's text
	CreatedAt   time.Time `gorm:"not null;autoCreateTime:false"`
}

// actorName is how the thread names who acted: a user by email, the CLI
// as "operator".
func actorName(actor Actor) string {
	if actor.Email != "" {
		return actor.Email
	}
	return actor.Role
}

// recordActivity appends an entry to the ticket's thread inside tx, which
// must hold the ticket's row lock (findTicket with lock), so that the
// numbering has no gaps or duplicates.
func (s *Store) recordActivity(tx *gorm.DB, actor Actor, ticketID, kind string, from, to, body *string) (*TicketActivity, error) {
	var seq int
	if err := tx.Model(&TicketActivity{}).Where("ticket_id = ?", ticketID).
		Select("COALESCE(MAX(seq), -1) + 1").Scan(&seq).Error; err != nil {
		return nil, err
	}
	a := TicketActivity{ID: NewID(), TicketID: ticketID, Seq: seq, Kind: kind, Actor: actorName(actor),
		ByStaff: actor.isStaff(), FromValue: from, ToValue: to, Body: body, CreatedAt: s.Now()}
	if actor.UserID != "" {
		a.ActorUserID = &actor.UserID
	}
	return &a, tx.Create(&a).Error
}

// TicketActivities returns a ticket's thread entries other than comments,
// oldest first. Owners get their own tickets' status and assignment
// changes, never internal notes; staff get every entry.
func (s *Store) TicketActivities(ctx context.Context, actor Actor, ticketID string) ([]TicketActivity, error) {
	db := s.read(ctx)
	if _, err := findTicket(db, actor, ticketID, false); err != nil {
		return nil, err
	}
	q := db.Where("ticket_id = ?", ticketID)
	if !actor.isStaff() {
		q = q.Where("kind <> ?", ActivityNote)
	}
	out := []TicketActivity{}
	return out, q.Order("seq").Find(&out).Error
}

// StaffEmails returns the emails of the given users, by id, so that
// support viewers can read which agent wrote a comment. Staff only.
func (s *Store) StaffEmails(ctx context.Context, actor Actor, userIDs []string) (map[string]string, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff see who in support acted")
	}
	out := map[string]string{}
	if len(userIDs) == 0 {
		return out, nil
	}
	var users []User
	if err := s.read(ctx).Select("id", "email").Where("id IN ?", userIDs).Find(&users).Error; err != nil {
		return nil, err
	}
	for _, u := range users {
		out[u.ID] = u.Email
	}
	return out, nil
}

package models

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Notification is one notification queued: its mail, to one user, for
// one kind, subject (a ticket, an endpoint, a key, an account) and
// period. The unique key (user, kind, subject, period) is what makes a
// notification idempotent: a second attempt to queue it (another
// replica's sweep, a retried transaction, the next reply of a batch)
// finds the row and queues no mail. Count is how many events it tells
// of (the replies of a batch).
type Notification struct {
	ID        string    `gorm:"primaryKey;size:32"`
	UserID    string    `gorm:"size:32;not null;uniqueIndex:idx_notifications_dedupe,priority:1"`
	Kind      string    `gorm:"size:32;not null;uniqueIndex:idx_notifications_dedupe,priority:2"`
	SubjectID string    `gorm:"size:32;not null;uniqueIndex:idx_notifications_dedupe,priority:3"`
	Period    string    `gorm:"size:64;not null;uniqueIndex:idx_notifications_dedupe,priority:4"`
	MailID    string    `gorm:"size:32;not null"`
	Count     int       `gorm:"not null"`
	CreatedAt time.Time `gorm:"not null;autoCreateTime:false;index"`
	UpdatedAt time.Time `gorm:"not null;autoUpdateTime:false"`
}

// recipient is a user a notification goes to.
type recipient struct {
	UserID, Email string
}

// accountRecipients are the members of an account who get mail of kind:
// its active members whose role the kind is for (webhook and budget mail
// goes to owners, who alone manage webhooks and budgets; the rest to every member), as far as
// the kind's topic is on for them.
func accountRecipients(tx *gorm.DB, accountID, kind string) ([]recipient, error) {
	roles := MemberRoles
	if kind == MailWebhookFailing || kind == MailWebhookDisabled || kind == MailBudgetThreshold {
		roles = []string{RoleOwner}
	}
	var users []User
	err := tx.Select("users.id", "users.email").
		Joins("JOIN memberships ON memberships.user_id = users.id").
		Where("memberships.account_id = ? AND memberships.role IN ? AND users.status = ?", accountID, roles, UserActive).
		Order("users.id").Find(&users).Error
	if err != nil {
		return nil, err
	}
	return wanting(tx, users, kind)
}

// accountRecipient is the one user of the account's recipients of kind
// (the author of a ticket, the holder of a key), if they are one.
func accountRecipient(tx *gorm.DB, accountID, userID, kind string) ([]recipient, error) {
	all, err := accountRecipients(tx, accountID, kind)
	for _, r := range all {
		if r.UserID == userID {
			return []recipient{r}, err
		}
	}
	return nil, err
}

// staffRecipients are the active support users who get mail of kind;
// with userID, only that one.
func staffRecipients(tx *gorm.DB, kind, userID string) ([]recipient, error) {
	q := tx.Select("id", "email").Where("role = ? AND status = ?", RoleSupport, UserActive)
	if userID != "" {
		q = q.Where("id = ?", userID)
	}
	var users []User
	if err := q.Order("id").Find(&users).Error; err != nil {
		return nil, err
	}
	return wanting(tx, users, kind)
}

// userRecipient is the user, if active and the kind's topic is on for them.
func userRecipient(tx *gorm.DB, userID, kind string) ([]recipient, error) {
	var users []User
	if err := tx.Select("id", "email").Where("id = ? AND status = ?", userID, UserActive).Find(&users).Error; err != nil {
		return nil, err
	}
	return wanting(tx, users, kind)
}

// wanting keeps the users for whom the topic of kind is on.
func wanting(tx *gorm.DB, users []User, kind string) ([]recipient, error) {
	topic, ok := topicOfKind[kind]
	if !ok {
		return nil, errors.New("notification: mail kind " + kind + " has no topic")
	}
	ids := make([]string, len(users))
	for i, u := range users {
		ids[i] = u.ID
	}
	chosen, err := preferences(tx, ids)
	if err != nil {
		return nil, err
	}
	var out []recipient
	for _, u := range users {
		on, set := chosen[u.ID][topic.Name]
		if !set {
			on = topic.Default
		}
		if on {
			out = append(out, recipient{UserID: u.ID, Email: u.Email})
		}
	}
	return out, nil
}

// notice is one notification, before it has recipients.
type notice struct {
	kind      string
	subjectID string
	period    string // with kind and subject, what makes it one notification
	data      map[string]string
	due       time.Time // when its mail may go; now when zero
}

// notify queues n's mail in tx to each recipient who has not had it
// (their user, its kind, subject and period), and returns how many it
// queued. The caller wakes the mail worker once tx commits.
func (s *Store) notify(tx *gorm.DB, to []recipient, n notice) (int, error) {
	queued := 0
	for _, r := range to {
		inserted, err := s.insertNotification(tx, r, n)
		if err != nil {
			return queued, err
		}
		if inserted != "" {
			if err := s.enqueueMailAt(tx, inserted, n.kind, r.Email, n.data, n.due); err != nil {
				return queued, err
			}
			queued++
		}
	}
	return queued, nil
}

// insertNotification records n for r unless it exists, returning the id
// of the mail to queue, or "" when it existed. On PostgreSQL a concurrent
// insert of the same key waits for the other transaction and then does
// nothing; SQLite has one writer.
func (s *Store) insertNotification(tx *gorm.DB, r recipient, n notice) (string, error) {
	now := s.Now()
	row := Notification{ID: NewID(), UserID: r.UserID, Kind: n.kind, SubjectID: n.subjectID, Period: n.period,
		MailID: NewID(), Count: 1, CreatedAt: now, UpdatedAt: now}
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&row)
	if res.Error != nil || res.RowsAffected == 0 {
		return "", res.Error
	}
	return row.MailID, nil
}

// notifyBatched is notify for events that come in bursts (ticket
// replies): the first of a window queues the mail, due when the window
// ends; the next ones in the window count themselves in it, so the mail
// says how many there were. A mail already claimed by a worker (only
// with clocks apart between replicas) keeps the count it had.
func (s *Store) notifyBatched(tx *gorm.DB, to []recipient, n notice, window time.Duration) error {
	now := s.Now()
	start := now.Truncate(window)
	n.period, n.due = start.Format(time.RFC3339), start.Add(window)
	for _, r := range to {
		n.data["count"] = "1"
		mailID, err := s.insertNotification(tx, r, n)
		if err != nil {
			return err
		}
		if mailID != "" {
			if err := s.enqueueMailAt(tx, mailID, n.kind, r.Email, n.data, n.due); err != nil {
				return err
			}
			continue
		}
		if err := s.countInBatch(tx, r, n, now); err != nil {
			return err
		}
	}
	return nil
}

// countInBatch adds one event to r's pending notification n.
func (s *Store) countInBatch(tx *gorm.DB, r recipient, n notice, now time.Time) error {
	var row Notification
	if err := tx.Clauses(forUpdate).Where("user_id = ? AND kind = ? AND subject_id = ? AND period = ?",
		r.UserID, n.kind, n.subjectID, n.period).Take(&row).Error; err != nil {
		return err
	}
	row.Count++
	if err := tx.Model(&Notification{}).Where("id = ?", row.ID).
		Updates(map[string]any{"count": row.Count, "updated_at": now}).Error; err != nil {
		return err
	}
	n.data["count"] = strconv.Itoa(row.Count)
	data, err := json.Marshal(n.data)
	if err != nil {
		return err
	}
	return tx.Model(&MailMessage{}).Where("id = ? AND status = ? AND lease_until IS NULL", row.MailID, MailPending).
		Updates(map[string]any{"data": string(data), "updated_at": now}).Error
}

package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Notification topics: what a user chooses to be told about by email, on
// their account page. Each mail kind of a notification belongs to one.
const (
	TopicTickets     = "tickets"      // support replied to or solved my ticket
	TopicWebhooks    = "webhooks"     // an endpoint failed for an hour, or was disabled
	TopicAPIKeys     = "api_keys"     // an API key of mine expires within 7 days
	TopicAccount     = "account"      // support changed my account
	TopicMembership  = "membership"   // I was added to an account, or my role changed
	TopicSev1Tickets = "sev1_tickets" // staff: a new severity 1 ticket
	TopicAssignments = "assignments"  // staff: a ticket assigned to me
	TopicBudgets     = "budgets"      // owners: the month's spend reached a budget threshold
)

// NotificationTopic is one choice on the account page.
type NotificationTopic struct {
	Name    string
	Label   string
	Hint    string
	Staff   bool // offered to support staff; the others to account users
	Default bool // on for a user who never chose
	Kinds   []string
}

// NotificationTopics are the choices, in the order the page shows them.
// Every one is on by default: a user who never visits the page is told
// what needs them, and each message says how to stop it.
var NotificationTopics = []NotificationTopic{
	{Name: TopicTickets, Label: "Support replied to or solved my ticket", Default: true,
		Hint:  "Replies are gathered: at most one email per ticket every 5 minutes, naming how many.",
		Kinds: []string{MailTicketReplied, MailTicketSolved}},
	{Name: TopicWebhooks, Label: "A webhook endpoint of my account has failed for an hour, or was disabled", Default: true,
		Hint:  "At most one email per endpoint a day while it fails; one when it is disabled.",
		Kinds: []string{MailWebhookFailing, MailWebhookDisabled}},
	{Name: TopicAPIKeys, Label: "An API key of mine expires within 7 days", Default: true,
		Hint: "Once per key.", Kinds: []string{MailAPIKeyExpiring}},
	{Name: TopicAccount, Label: "Support changed my account (status, quotas, billing address)", Default: true,
		Kinds: []string{MailAccountChanged}},
	{Name: TopicMembership, Label: "I was added to an account, or my role changed", Default: true,
		Kinds: []string{MailMembershipChanged}},
	{Name: TopicSev1Tickets, Label: "A new ticket of severity 1", Staff: true, Default: true,
		Kinds: []string{MailTicketSev1}},
	{Name: TopicAssignments, Label: "A ticket was assigned to me", Staff: true, Default: true,
		Hint: "Not when you take it yourself.", Kinds: []string{MailTicketAssigned}},
	{Name: TopicBudgets, Label: "My account's spend this month reached a budget threshold", Default: true,
		Hint:  "Owners only: 50%, 80% and 100% of the budget, and a forecast over it, each once a month.",
		Kinds: []string{MailBudgetThreshold}},
}

// topicOfKind is the topic each notification's mail kind belongs to.
var topicOfKind = func() map[string]NotificationTopic {
	m := map[string]NotificationTopic{}
	for _, t := range NotificationTopics {
		for _, k := range t.Kinds {
			m[k] = t
		}
	}
	return m
}()

// NotificationPreference is a user's choice for one topic. A topic
// without a row has its default.
type NotificationPreference struct {
	UserID    string    `gorm:"primaryKey;size:32"`
	Topic     string    `gorm:"primaryKey;size:32"`
	Enabled   bool      `gorm:"not null"`
	UpdatedAt time.Time `gorm:"not null;autoUpdateTime:false"`
}

// NotificationSetting is a topic and whether it is on for a user.
type NotificationSetting struct {
	NotificationTopic
	On bool
}

// topicsFor are the topics offered to the actor: support staff's, or
// account users'.
func topicsFor(actor Actor) []NotificationTopic {
	var out []NotificationTopic
	for _, t := range NotificationTopics {
		if t.Staff == actor.IsSupport() {
			out = append(out, t)
		}
	}
	return out
}

// NotificationSettings lists the topics the signed-in user may choose,
// each with whether it is on. The operator's CLI, which is no user,
// gets CodeForbidden.
func (s *Store) NotificationSettings(ctx context.Context, actor Actor) ([]NotificationSetting, error) {
	if actor.UserID == "" {
		return nil, Errorf(CodeForbidden, "Only a signed-in user has notification settings")
	}
	chosen, err := preferences(s.read(ctx), []string{actor.UserID})
	if err != nil {
		return nil, translate(err)
	}
	var out []NotificationSetting
	for _, t := range topicsFor(actor) {
		on, set := chosen[actor.UserID][t.Name]
		if !set {
			on = t.Default
		}
		out = append(out, NotificationSetting{NotificationTopic: t, On: on})
	}
	return out, nil
}

// preferences are the choices the users made, by user and topic.
func preferences(tx *gorm.DB, userIDs []string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	if len(userIDs) == 0 {
		return out, nil
	}
	var rows []NotificationPreference
	if err := tx.Where("user_id IN ?", userIDs).Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		if out[r.UserID] == nil {
			out[r.UserID] = map[string]bool{}
		}
		out[r.UserID][r.Topic] = r.Enabled
	}
	return out, nil
}

// NotificationPreferencesInput is the account page's form: the topics to
// turn on. Every other topic offered to the user is turned off, as an
// unticked checkbox sends nothing.
type NotificationPreferencesInput struct {
	On []string
}

// validate refuses a name that is not a topic offered to the actor, on
// the field "notifications".
func (in NotificationPreferencesInput) validate(actor Actor) error {
	offered := topicsFor(actor)
	for _, name := range in.On {
		if !slices.ContainsFunc(offered, func(t NotificationTopic) bool { return t.Name == name }) {
			return InvalidField("notifications", fmt.Sprintf("unknown notification %q", truncate(name, 64)))
		}
	}
	return nil
}

// SetNotificationPreferences records the signed-in user's choices: the
// topics in in.On on, the others offered to them off. A name not offered
// to them is CodeInvalidParameters on "notifications" and changes
// nothing. A change writes one audit event (user, updated) naming the
// topics turned on and off; choosing what is already chosen writes none.
func (s *Store) SetNotificationPreferences(ctx context.Context, actor Actor, in NotificationPreferencesInput) error {
	if actor.UserID == "" || actor.APIKeyID != "" {
		return Errorf(CodeForbidden, "Only a signed-in user chooses their notifications")
	}
	if err := in.validate(actor); err != nil {
		return err
	}
	return s.write(ctx, func(tx *gorm.DB) error {
		chosen, err := preferences(tx, []string{actor.UserID})
		if err != nil {
			return err
		}
		now := s.Now()
		changes := map[string]bool{}
		for _, t := range topicsFor(actor) {
			on := slices.Contains(in.On, t.Name)
			was, set := chosen[actor.UserID][t.Name]
			if !set {
				was = t.Default
			}
			if on != was {
				changes[t.Name] = on
			}
			if set && was == on {
				continue
			}
			row := NotificationPreference{UserID: actor.UserID, Topic: t.Name, Enabled: on, UpdatedAt: now}
			if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "user_id"}, {Name: "topic"}},
				DoUpdates: clause.AssignmentColumns([]string{"enabled", "updated_at"})}).Create(&row).Error; err != nil {
				return err
			}
		}
		if len(changes) == 0 {
			return nil
		}
		return s.audit(tx, actor, actor.AccountID, "user", "updated", []string{lrn("user", actor.UserID)},
			map[string]any{"notifications": changes})
	})
}

package models

import (
	"context"
	"slices"
	"strings"
)

// userLRNPrefix starts the actor_lrn of an event a user caused.
const userLRNPrefix = "lrn:cloud:user:"

// ActorUserID is the id of the user who caused an event, or "" when no
// user did (the operator, cloudplane itself).
func (ev AuditEvent) ActorUserID() string {
	if ev.ActorLRN == nil {
		return ""
	}
	id, ok := strings.CutPrefix(*ev.ActorLRN, userLRNPrefix)
	if !ok {
		return ""
	}
	return id
}

// SupportActorEmails maps the support staff who caused any of events to
// their emails, for support staff reading an account's log (owners see
// "Support", never who). Anyone else gets CodeForbidden.
func (s *Store) SupportActorEmails(ctx context.Context, actor Actor, events []AuditEvent) (map[string]string, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff see who in support made a change")
	}
	return s.actorEmails(ctx, events, []string{RoleSupport})
}

// actorEmails maps the users who caused any of events, acting in one of
// roles, to their emails, in one query.
func (s *Store) actorEmails(ctx context.Context, events []AuditEvent, roles []string) (map[string]string, error) {
	var ids []string
	for _, ev := range events {
		if id := ev.ActorUserID(); id != "" && ev.ActorRole != nil && slices.Contains(roles, *ev.ActorRole) {
			ids = append(ids, id)
		}
	}
	emails := map[string]string{}
	if len(ids) == 0 {
		return emails, nil
	}
	var users []User
	if err := s.read(ctx).Select("id", "email").Where("id IN ?", ids).Find(&users).Error; err != nil {
		return nil, err
	}
	for _, u := range users {
		emails[u.ID] = u.Email
	}
	return emails, nil
}

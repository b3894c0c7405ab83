package models

import (
	"context"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Assignee filters beside a support user's id.
const (
	TicketUnassigned = "unassigned"
	TicketMine       = "mine" // the acting support user's
)

// queueKey is a sort order of the support queue on something other than
// a time: its SQL expression over a tickets row, and the same value
// computed from a listed ticket for the page token. Rows with equal keys
// follow in created_at order (oldest first when ascending).
type queueKey struct {
	sql string
	of  func(TicketSummary) string
}

// queueOrders are the support queue's orders beside created_at and
// updated_at. Ascending puts the most severe, the earliest status and the
// unassigned first.
var queueOrders = map[string]queueKey{
	"severity": {sql: "COALESCE(severity, 'sev_9')", of: func(t TicketSummary) string {
		if t.Severity == nil {
			return "sev_9"
		}
		return *t.Severity
	}},
	"status": {sql: statusRankSQL(), of: func(t TicketSummary) string { return statusRank(t.Status) }},
	"assignee": {sql: "COALESCE((SELECT email FROM users WHERE users.id = tickets.assignee_user_id), '')",
		of: func(t TicketSummary) string { return t.AssigneeEmail }},
}

// statusRank is a status's place in TicketStatuses, as a sortable string.
func statusRank(status string) string {
	for i, s := range TicketStatuses {
		if s == status {
			return strconv.Itoa(i)
		}
	}
	return "9"
}

func statusRankSQL() string {
	var b strings.Builder
	b.WriteString("CASE status")
	for _, s := range TicketStatuses {
		b.WriteString(" WHEN '" + s + "' THEN '" + statusRank(s) + "'")
	}
	b.WriteString(" ELSE '9' END")
	return b.String()
}

// checkStaffOnly refuses the queue's filters and orders to owners: they
// would tell an owner who in support works their tickets.
func (f *TicketFilter) checkStaffOnly(actor Actor) error {
	if actor.isStaff() {
		return nil
	}
	if f.Assignee != "" {
		return InvalidField("assignee", "only support staff filter by assignee")
	}
	if _, ok := queueOrders[f.OrderBy]; ok {
		return InvalidField("order_by", "must be created_at or updated_at, not "+strconv.Quote(f.OrderBy))
	}
	return nil
}

// queueFilters limits q by assignee and age.
func (f *TicketFilter) queueFilters(q *gorm.DB, actor Actor, now time.Time) *gorm.DB {
	switch f.Assignee {
	case "":
	case TicketUnassigned:
		q = q.Where("assignee_user_id IS NULL")
	case TicketMine:
		q = q.Where("assignee_user_id = ?", actor.UserID)
	default:
		q = q.Where("assignee_user_id = ?", f.Assignee)
	}
	if f.MinAge > 0 {
		q = q.Where("created_at <= ?", now.Add(-f.MinAge))
	}
	return q
}

// addQueueNames fills in each ticket's account owner's and assignee's
// emails, for staff.
func (s *Store) addQueueNames(ctx context.Context, tickets []TicketSummary) error {
	accounts := make([]string, 0, len(tickets))
	users := make([]string, 0, len(tickets))
	for _, t := range tickets {
		accounts = append(accounts, t.AccountID)
		if t.AssigneeUserID != nil {
			users = append(users, *t.AssigneeUserID)
		}
	}
	owners, err := accountOwnerEmails(s.read(ctx), accounts)
	if err != nil {
		return err
	}
	emails, err := s.StaffEmails(ctx, OperatorActor, users)
	if err != nil {
		return err
	}
	for i := range tickets {
		tickets[i].AccountEmail = owners[tickets[i].AccountID]
		if id := tickets[i].AssigneeUserID; id != nil {
			tickets[i].AssigneeEmail = emails[*id]
		}
	}
	return nil
}

// accountOwnerEmails maps each account id to the email of its first
// current owner (by email), as the support list of accounts labels it.
func accountOwnerEmails(db *gorm.DB, accountIDs []string) (map[string]string, error) {
	out := map[string]string{}
	if len(accountIDs) == 0 {
		return out, nil
	}
	var rows []struct{ AccountID, Email string }
	if err := db.Table(accountOwnersSQL).Select("owners.account_id, owners.email").
		Where("owners.account_id IN ?", accountIDs).Scan(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.AccountID] = r.Email
	}
	return out, nil
}

// AccountOwnerEmails maps each account id to its owner's email, so that
// support lists name accounts by email. Staff only.
func (s *Store) AccountOwnerEmails(ctx context.Context, actor Actor, accountIDs []string) (map[string]string, error) {
	if !actor.isStaff() {
		return nil, Errorf(CodeForbidden, "Only support staff look up other accounts")
	}
	return accountOwnerEmails(s.read(ctx), accountIDs)
}

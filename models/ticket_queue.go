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
	// time, when set, replaces created_at as the second sort value: its
	// SQL expression and its value of a listed ticket.
	time   string
	timeOf func(TicketSummary) time.Time
}

// waitingRank sorts tickets waiting for support before those where
// support spoke last.
const waitingRank = "CASE WHEN waiting_since IS NULL THEN 'b' ELSE 'a' END"

func waitingRankOf(t TicketSummary) string {
	if t.WaitingSince == nil {
		return "b"
	}
	return "a"
}

// waitingTime is the longest waiting first, then, among tickets where
// support spoke last, the oldest.
var waitingTime = struct {
	sql string
	of  func(TicketSummary) time.Time
}{"COALESCE(waiting_since, created_at)", func(t TicketSummary) time.Time {
	if t.WaitingSince != nil {
		return *t.WaitingSince
	}
	return t.CreatedAt
}}

func severityOf(t TicketSummary) string {
	if t.Severity == nil {
		return "sev_9"
	}
	return *t.Severity
}

// timeColumn is the key's second sort value: its SQL and a ticket's value.
func (k queueKey) timeColumn() (string, func(TicketSummary) time.Time) {
	if k.time != "" {
		return k.time, k.timeOf
	}
	return "created_at", func(t TicketSummary) time.Time { return t.CreatedAt }
}

// queueOrders are the support queue's orders beside created_at and
// updated_at. Ascending puts the most severe, the longest waiting, the
// earliest status and the unassigned first.
var queueOrders = map[string]queueKey{
	"severity": {sql: "COALESCE(severity, 'sev_9')", of: severityOf},
	// triage is the queue's default: most severe first, then the longest
	// waiting for support; tickets where support spoke last come after
	// those of their severity that wait.
	"triage": {sql: "COALESCE(severity, 'sev_9') || " + waitingRank,
		of:   func(t TicketSummary) string { return severityOf(t) + waitingRankOf(t) },
		time: waitingTime.sql, timeOf: waitingTime.of},
	"waiting": {sql: waitingRank, of: waitingRankOf, time: waitingTime.sql, timeOf: waitingTime.of},
	"status":  {sql: statusRankSQL(), of: func(t TicketSummary) string { return statusRank(t.Status) }},
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

package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// TicketPageSize is how many tickets a page holds at most.
const TicketPageSize = 100

// ticketPageSecret names the server secret that signs ticket page tokens.
const ticketPageSecret = "ticket-page-token"

// apiTicketStatuses maps each status the API filters on to the statuses it
// covers; the reference's confirm_solved is never used here, so it matches
// nothing.
var apiTicketStatuses = map[string][]string{
	"open":           {TicketNew, TicketOpen},
	"pending":        {TicketPending},
	"on_hold":        {TicketOnHold},
	"solved":         {TicketSolved, TicketClosed},
	"confirm_solved": {},
}

// TicketFilter selects and orders a listing of tickets. Empty lists do not
// filter; values within one list are alternatives.
type TicketFilter struct {
	Statuses    []string // this product's statuses (dashboard)
	APIStatuses []string // the API's statuses: open covers new, solved covers closed
	Types       []string
	Severities  []string
	AccountID   string // staff only: one account's tickets; owners always get their own
	Assignee    string // staff only: a support user's id, TicketUnassigned or TicketMine
	MinAge      time.Duration
	OrderBy     string // created_at (default), updated_at, or for staff triage, waiting, severity, status or assignee
	Direction   string // desc (default, newest first) or asc
	PageToken   string
	Limit       int // 0 or more than TicketPageSize means TicketPageSize
}

// Validate checks every value and fills in the defaults.
func (f *TicketFilter) Validate() error {
	var fe FieldErrors
	for _, s := range f.Statuses {
		if _, ok := ticketMoves[s]; !ok {
			fe.Add("status", fmt.Sprintf("must be new, open, pending, on_hold, solved or closed, not %q", s))
		}
	}
	for _, s := range f.APIStatuses {
		if _, ok := apiTicketStatuses[s]; !ok {
			fe.Add("status", fmt.Sprintf("must be open, on_hold, pending, solved or confirm_solved, not %q", s))
		}
	}
	for _, t := range f.Types {
		if t != TicketIncident && t != TicketServiceRequest && t != TicketAutomatedEvent {
			fe.Add("type", fmt.Sprintf("must be incident, service_request or automated_event, not %q", t))
		}
	}
	for _, sev := range f.Severities {
		checkSeverity(&fe, sev)
	}
	switch f.OrderBy {
	case "":
		f.OrderBy = "created_at"
	case "created_at", "updated_at":
	default:
		if _, ok := queueOrders[f.OrderBy]; !ok {
			fe.Add("order_by", fmt.Sprintf("must be created_at or updated_at, not %q", f.OrderBy))
		}
	}
	if f.Assignee != "" && f.Assignee != TicketUnassigned && f.Assignee != TicketMine && !IsID(f.Assignee) {
		fe.Add("assignee", "must be a support user's id, unassigned or mine")
	}
	if f.MinAge < 0 {
		fe.Add("min_age", "must not be negative")
	}
	switch f.Direction {
	case "":
		f.Direction = "desc"
	case "asc", "desc":
	default:
		fe.Add("direction", fmt.Sprintf("must be asc or desc, not %q", f.Direction))
	}
	if f.Limit <= 0 || f.Limit > TicketPageSize {
		f.Limit = TicketPageSize
	}
	return fe.Err()
}

// statuses is the set of stored statuses the filter admits, and whether
// it filters at all.
func (f *TicketFilter) statuses() ([]string, bool) {
	if len(f.Statuses) == 0 && len(f.APIStatuses) == 0 {
		return nil, false
	}
	out := slices.Clone(f.Statuses)
	for _, s := range f.APIStatuses {
		out = append(out, apiTicketStatuses[s]...)
	}
	return out, true
}

// TicketSummary is a ticket as a list shows it: the row, who opened it
// and how many comments it has, without the comments' text.
type TicketSummary struct {
	Ticket
	Requester     string // author of the description
	CommentCount  int    // comments after the description
	AccountEmail  string // staff only: the account owner's email
	AssigneeEmail string // staff only: "" while unassigned
	textBytes     int64  // of the description and every comment
}

// TicketPage is one page of a listing; NextPageToken is nil on the last.
type TicketPage struct {
	Tickets       []TicketSummary
	NextPageToken *string
}

// TicketDetailPage is one page of tickets with their comments.
type TicketDetailPage struct {
	Tickets       []TicketDetail
	NextPageToken *string
}

// Tickets lists tickets without their text (the description is left out
// too), a page at a time, by keyset (no offsets) with a signed page token.
// Owners list their account's; support staff list every account's, or one
// account's with AccountID. A bad filter value or a tampered page token is
// CodeInvalidParameters.
func (s *Store) Tickets(ctx context.Context, actor Actor, f TicketFilter) (*TicketPage, error) {
	tickets, more, err := s.ticketPage(ctx, actor, &f, false)
	if err != nil {
		return nil, err
	}
	page := &TicketPage{Tickets: tickets}
	if more {
		if page.NextPageToken, err = s.nextTicketPageToken(ctx, f, tickets[len(tickets)-1]); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// TicketsWithComments is Tickets with each ticket's description and every
// comment, as the API lists them. A page ends early, before the ticket
// that would take the API's answer past TicketListPageBudget (counting
// each ticket as ticketJSONSize does), so one answer stays small whatever
// the tickets hold; the page token then continues after the last ticket
// given. An owner's tickets carry only what the API's list shows and goes
// by (ticketListColumns), the other fields zero; support staff's carry
// every column.
//
// Its reads share a connection: counting the comments and then reading
// them passes over the same rows twice.
func (s *Store) TicketsWithComments(ctx context.Context, actor Actor, f TicketFilter) (*TicketDetailPage, error) {
	var page *TicketDetailPage
	err := s.readTogether(ctx, func(ctx context.Context) error {
		// The page is cut first by the stored sizes, which never exceed
		// the escaped ones, so no more text is read than can fit; then by
		// the escaped sizes of the text read.
		summaries, more, err := s.ticketPage(ctx, actor, &f, true)
		if err != nil {
			return err
		}
		tickets := make([]Ticket, len(summaries))
		for i, t := range summaries {
			tickets[i] = t.Ticket
		}
		details, err := s.withComments(ctx, tickets)
		if err != nil {
			return err
		}
		if keep := detailsWithinBudget(details, TicketListPageBudget-TicketListEnvelope); keep < len(details) {
			details, summaries, more = details[:keep], summaries[:keep], true
		}
		page = &TicketDetailPage{Tickets: details}
		if more {
			page.NextPageToken, err = s.nextTicketPageToken(ctx, f, summaries[len(summaries)-1])
		}
		return err
	})
	return page, err
}

// ticketPage reads one page of summaries and whether more follow; it
// validates f and fills in its defaults. With text, rows carry their
// description and the page is cut to the page budget in stored text
// (never more than the answer's size); without, the description is not
// read.
func (s *Store) ticketPage(ctx context.Context, actor Actor, f *TicketFilter, text bool) ([]TicketSummary, bool, error) {
	q, err := s.ticketPageQuery(ctx, actor, f)
	if err != nil {
		return nil, false, err
	}
	read := ticketWithoutText
	switch {
	case text && actor.isStaff(): // staff's lists are ordered and named by more
		read = ticketWithText
	case text:
		read = ticketForList
	}
	tickets, err := findTickets(q, read)
	if err != nil {
		return nil, false, err
	}
	summaries := summarize(tickets)
	if actor.isStaff() {
		if err := s.addQueueNames(ctx, summaries); err != nil {
			return nil, false, err
		}
	}
	keep := min(len(summaries), f.Limit)
	if text {
		keep = withinBudget(summaries[:keep], TicketListPageBudget-TicketListEnvelope)
	}
	return summaries[:keep], keep < len(summaries), nil
}

// ticketPageQuery is the query of one page of f's listing for actor,
// ordered, and limited to one ticket more than the page so that its reader
// knows whether more follow; it validates f and fills in its defaults.
func (s *Store) ticketPageQuery(ctx context.Context, actor Actor, f *TicketFilter) (*gorm.DB, error) {
	accountID, err := actor.scope(f.AccountID)
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if err := f.checkStaffOnly(actor); err != nil {
		return nil, err
	}
	desc := f.Direction == "desc"
	q := s.read(ctx).Model(&Ticket{})
	if accountID != "" {
		q = q.Where("account_id = ?", accountID)
	}
	if statuses, ok := f.statuses(); ok {
		q = q.Where("status IN ?", append(statuses, "")) // never an empty IN list
	}
	if len(f.Types) > 0 {
		q = q.Where("request_type IN ?", f.Types)
	}
	if len(f.Severities) > 0 {
		q = q.Where("severity IN ?", f.Severities)
	}
	q = f.queueFilters(q, actor, s.Now())
	key, keyed := queueOrders[f.OrderBy]
	if f.PageToken != "" {
		c, err := s.openCursor(ctx, ticketPageSecret, f.PageToken, f.OrderBy, desc)
		if err != nil {
			return nil, err
		}
		if keyed {
			column, _ := key.timeColumn()
			q = c.afterKey(q, key.sql, column, "id")
		} else {
			q = c.after(q, f.OrderBy, "id")
		}
	}
	orderBy := order(f.OrderBy, "id", desc)
	if keyed {
		column, _ := key.timeColumn()
		orderBy = keyOrder(key.sql, column, "id", desc)
	}
	return q.Order(orderBy).Limit(f.Limit + 1), nil
}

// nextTicketPageToken is the signed token of the page after last, for the
// validated filter f.
func (s *Store) nextTicketPageToken(ctx context.Context, f TicketFilter, last TicketSummary) (*string, error) {
	desc := f.Direction == "desc"
	key, keyed := queueOrders[f.OrderBy]
	at := last.CreatedAt
	if f.OrderBy == "updated_at" {
		at = last.UpdatedAt
	}
	c := cursor{OrderBy: f.OrderBy, Desc: desc, At: at, ID: last.ID}
	if keyed {
		_, at := key.timeColumn()
		c.At, c.Key = at(last), key.of(last)
	}
	token, err := s.signCursor(ctx, ticketPageSecret, c)
	if err != nil {
		return nil, err
	}
	return &token, nil
}

// summarize adds to each ticket its requester and comment count. Its text
// is what the API's answer carries: the description is read (when it is)
// and is the first comment too.
func summarize(tickets []Ticket) []TicketSummary {
	out := make([]TicketSummary, len(tickets))
	for i, t := range tickets {
		out[i] = TicketSummary{Ticket: t, CommentCount: max(t.CommentRows-1, 0), textBytes: ticketRawText(&t)}
		if t.DescriptionAuthor != nil {
			out[i].Requester = *t.DescriptionAuthor
		}
	}
	return out
}

// withinBudget is how many of tickets, from the first, fit in budget bytes
// of stored text; at least one, so that a listing always moves on.
func withinBudget(tickets []TicketSummary, budget int64) int {
	return fitting(len(tickets), func(i int) int64 { return tickets[i].textBytes }, budget)
}

// fitting is how many of n items, from the first, fit in budget by their
// sizes; at least one.
func fitting(n int, size func(i int) int64, budget int64) int {
	var used int64
	for i := range n {
		used += size(i)
		if used > budget && i > 0 {
			return i
		}
	}
	return n
}

// detailsWithinBudget is how many of tickets, from the first, fit in
// budget bytes of the API's JSON; at least one. A page that fits even were
// every byte of its text escaped is not scanned (most are: scanning every
// comment's text took a tenth of a full page's read).
func detailsWithinBudget(tickets []TicketDetail, budget int64) int {
	if ticketsJSONBound(tickets) <= budget {
		return len(tickets)
	}
	return fitting(len(tickets), func(i int) int64 {
		return ticketJSONSize(tickets[i].Subject, tickets[i].Description, tickets[i].Comments)
	}, budget)
}

// ticketsJSONBound is at least the sum of ticketJSONSize over tickets, from
// the texts' lengths alone: JSON escapes a byte to maxJSONExpansion bytes
// at most.
func ticketsJSONBound(tickets []TicketDetail) int64 {
	var n int64
	for i := range tickets {
		n += ticketJSONBound(&tickets[i])
	}
	return n
}

// ticketJSONBound is at least ticketJSONSize of t, from its texts' lengths.
func ticketJSONBound(t *TicketDetail) int64 {
	n := TicketJSONFrame + maxJSONExpansion*int64(len(t.Subject)+len(t.Description))
	for j := range t.Comments {
		n += CommentJSONFrame + maxJSONExpansion*int64(len(t.Comments[j].Body)+len(t.Comments[j].Author))
	}
	return n
}

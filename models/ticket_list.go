package models

import (
	"context"
	"fmt"
	"slices"
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
	OrderBy     string // created_at (default) or updated_at
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
		fe.Add("order_by", fmt.Sprintf("must be created_at or updated_at, not %q", f.OrderBy))
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

// TicketPage is one page of a listing; NextPageToken is nil on the last.
type TicketPage struct {
	Tickets       []TicketDetail
	NextPageToken *string
}

// Tickets lists tickets with their comments, a page at a time, by keyset
// (no offsets) with a signed page token. Owners list their account's;
// support staff list every account's, or one account's with AccountID.
// A bad filter value or a tampered page token is CodeInvalidParameters.
func (s *Store) Tickets(ctx context.Context, actor Actor, f TicketFilter) (*TicketPage, error) {
	accountID, err := actor.scope(f.AccountID)
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
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
	if f.PageToken != "" {
		c, err := s.openCursor(ctx, ticketPageSecret, f.PageToken, f.OrderBy, desc)
		if err != nil {
			return nil, err
		}
		q = c.after(q, f.OrderBy, "id")
	}
	var tickets []Ticket
	if err := q.Order(order(f.OrderBy, "id", desc)).Limit(f.Limit + 1).Find(&tickets).Error; err != nil {
		return nil, err
	}
	page := &TicketPage{}
	if len(tickets) > f.Limit {
		tickets = tickets[:f.Limit]
		last := tickets[len(tickets)-1]
		at := last.CreatedAt
		if f.OrderBy == "updated_at" {
			at = last.UpdatedAt
		}
		token, err := s.signCursor(ctx, ticketPageSecret, cursor{OrderBy: f.OrderBy, Desc: desc, At: at, ID: last.ID})
		if err != nil {
			return nil, err
		}
		page.NextPageToken = &token
	}
	page.Tickets, err = s.withComments(ctx, tickets)
	return page, err
}

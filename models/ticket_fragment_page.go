package models

import (
	"context"
	"errors"
)

// errTicketsChanged is why a page read from fragments is read again: one
// of its tickets changed between the read of its state and of its text.
var errTicketsChanged = errors.New("a ticket changed while its page was read")

// fragmentPageTries is how many times a page is read from fragments before
// it is read whole: a page whose tickets change faster than it is read.
const fragmentPageTries = 3

// encodedTicketPage is an owner's page of TicketsWithComments, encoded by
// enc, with the same tickets, cuts and page token, at the cost of what
// changed since it was last read: it reads the page's tickets' state, and
// their text, comments and encoding only for those whose encoding in that
// state is not cached (ticketFragments). The page shows its tickets as
// the one read of their state saw them.
func (s *Store) encodedTicketPage(ctx context.Context, actor Actor, f TicketFilter, enc *TicketPageEncoding) ([]byte, error) {
	for range fragmentPageTries {
		var body []byte
		err := s.readTogether(ctx, func(ctx context.Context) error {
			var err error
			body, err = s.fragmentPage(ctx, actor, f, enc)
			return err
		})
		if !errors.Is(err, errTicketsChanged) {
			return body, err
		}
	}
	page, err := s.TicketsWithComments(ctx, actor, f)
	if err != nil {
		return nil, err
	}
	return enc.Encode(page), nil
}

// fragmentPage is one try of encodedTicketPage, cutting the page as
// TicketsWithComments does: by stored text, then by the encoding's size.
// Owners only: it reads no account_id.
func (s *Store) fragmentPage(ctx context.Context, actor Actor, f TicketFilter, enc *TicketPageEncoding) ([]byte, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	q, err := s.ticketPageQuery(ctx, actor, &f)
	if err != nil {
		return nil, err
	}
	states, err := findTickets(q, ticketForState)
	if err != nil {
		return nil, err
	}
	for i := range states {
		states[i].AccountID = accountID // the page is the owner's: ticketPageQuery filters by it
	}
	n := min(len(states), f.Limit)
	frags := make([]*ticketFragment, n)
	s.ticketFragments.get(enc, states[:n], frags)
	rows, err := s.ticketsWithoutFragment(ctx, states[:n], frags)
	if err != nil {
		return nil, err
	}
	budget := int64(TicketListPageBudget - TicketListEnvelope)
	keep := fitting(n, func(i int) int64 {
		if frags[i] != nil {
			return frags[i].headBytes + states[i].CommentBytes
		}
		return ticketRawText(&rows[i])
	}, budget)
	if err := s.encodeFragments(ctx, enc, rows[:keep], frags[:keep]); err != nil {
		return nil, err
	}
	more := keep < len(states)
	if fits := fragmentsWithinBudget(frags[:keep], budget); fits < keep {
		keep, more = fits, true
	}
	var next *string
	if more {
		if next, err = s.nextTicketPageToken(ctx, f, TicketSummary{Ticket: states[keep-1]}); err != nil {
			return nil, err
		}
	}
	bodies := make([][]byte, keep)
	for i := range bodies {
		bodies[i] = frags[i].body
	}
	return enc.page(bodies, next), nil
}

// ticketsWithoutFragment reads, in one query, the rows (ticketListColumns)
// of the tickets of states that have no fragment, at the same index; the
// others are left zero. A row whose state is no longer the one read is
// errTicketsChanged.
func (s *Store) ticketsWithoutFragment(ctx context.Context, states []Ticket, frags []*ticketFragment) ([]Ticket, error) {
	rows := make([]Ticket, len(states))
	var ids []string
	for i := range states {
		if frags[i] == nil {
			ids = append(ids, states[i].ID)
		}
	}
	if len(ids) == 0 {
		return rows, nil
	}
	read, err := findTickets(s.read(ctx).Model(&Ticket{}).
		Where("account_id = ? AND id IN ?", states[0].AccountID, ids), ticketForList)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*Ticket, len(read))
	for i := range read {
		byID[read[i].ID] = &read[i]
	}
	for i := range states {
		if frags[i] != nil {
			continue
		}
		row, ok := byID[states[i].ID]
		if !ok || stateOf(row) != stateOf(&states[i]) {
			return nil, errTicketsChanged
		}
		rows[i] = *row
	}
	return rows, nil
}

// encodeFragments fills in frags, where nil, with the encoding of the
// ticket of rows at the same index, comments read, and caches them.
func (s *Store) encodeFragments(ctx context.Context, enc *TicketPageEncoding, rows []Ticket, frags []*ticketFragment) error {
	var tickets []Ticket
	var at []int // of frags, tickets'
	for i := range frags {
		if frags[i] == nil {
			tickets, at = append(tickets, rows[i]), append(at, i)
		}
	}
	if len(tickets) == 0 {
		return nil
	}
	details, err := s.withComments(ctx, tickets)
	if err != nil {
		return err
	}
	for j := range details {
		d := &details[j]
		if len(d.Comments) != d.CommentRows { // a comment committed after the row was read
			return errTicketsChanged
		}
		frags[at[j]] = newTicketFragment(enc, d)
		s.ticketFragments.put(enc, d.ID, frags[at[j]])
	}
	return nil
}

// fragmentsWithinBudget is detailsWithinBudget of the fragments' tickets.
func fragmentsWithinBudget(frags []*ticketFragment, budget int64) int {
	var bound int64
	for _, f := range frags {
		bound += f.jsonBound
	}
	if bound <= budget {
		return len(frags)
	}
	return fitting(len(frags), func(i int) int64 { return frags[i].jsonSize }, budget)
}

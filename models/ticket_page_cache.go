package models

import (
	"context"
	"strconv"
	"strings"
)

// TicketPageEncoding is one way of encoding a page of tickets with their
// comments, such as the API's JSON body. Make one per encoding, at package
// level: the caches tell encodings apart by identity.
type TicketPageEncoding struct {
	ticket func(*TicketDetail) []byte
	page   func(tickets [][]byte, next *string) []byte
}

// NewTicketPageEncoding returns the encoding that writes each ticket of a
// page by ticket and the page around its tickets' bytes, in order, by
// page. Both must depend on their arguments alone and neither modify nor
// retain them: a ticket's bytes are kept (ticketFragments) and put in
// every page that shows the ticket unchanged.
func NewTicketPageEncoding(ticket func(*TicketDetail) []byte, page func(tickets [][]byte, next *string) []byte) *TicketPageEncoding {
	return &TicketPageEncoding{ticket: ticket, page: page}
}

// Encode encodes p whole, as an encoded listing does from its parts.
func (e *TicketPageEncoding) Encode(p *TicketDetailPage) []byte {
	tickets := make([][]byte, len(p.Tickets))
	for i := range p.Tickets {
		tickets[i] = e.ticket(&p.Tickets[i])
	}
	return e.page(tickets, p.NextPageToken)
}

// TicketsWithCommentsEncoded is TicketsWithComments encoded by enc. An
// owner's pages are kept encoded until the account changes (pageCache),
// so that a page read again costs one version read, and a page read after
// a change costs a read of its tickets' state and what changed
// (encodedTicketPage); support staff's are read every time (their
// listings span accounts). The bytes are shared with the cache and other
// callers: they must not be modified.
func (s *Store) TicketsWithCommentsEncoded(ctx context.Context, actor Actor, f TicketFilter, enc *TicketPageEncoding) ([]byte, error) {
	accountID, err := actor.ownAccount()
	if err != nil || actor.isStaff() || f.AccountID != "" || f.Assignee != "" || f.MinAge != 0 {
		// Not an owner's own listing, or one that depends on the clock or
		// on more than the account: TicketsWithComments judges it.
		page, err := s.TicketsWithComments(ctx, actor, f)
		if err != nil {
			return nil, err
		}
		return enc.Encode(page), nil
	}
	key := pageKey{account: accountID, by: enc, query: queryKey(strings.Join(f.Statuses, ","),
		strings.Join(f.APIStatuses, ","), strings.Join(f.Types, ","), strings.Join(f.Severities, ","),
		f.OrderBy, f.Direction, f.PageToken, strconv.Itoa(f.Limit))}
	return s.ticketPages.page(ctx, s, key, func() ([]byte, error) {
		return s.encodedTicketPage(ctx, actor, f, enc)
	})
}

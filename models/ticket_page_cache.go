package models

import (
	"context"
	"strconv"
	"strings"
)

// TicketPageEncoding is one way of encoding a page of tickets with their
// comments, such as the API's JSON body. Make one per encoding, at package
// level: the cache tells encodings apart by identity.
type TicketPageEncoding struct {
	encode func(*TicketDetailPage) []byte
}

// NewTicketPageEncoding returns an encoding by encode, which must depend
// on the page alone and neither modify nor retain it.
func NewTicketPageEncoding(encode func(*TicketDetailPage) []byte) *TicketPageEncoding {
	return &TicketPageEncoding{encode: encode}
}

// TicketsWithCommentsEncoded is TicketsWithComments encoded by enc. An
// owner's pages are kept encoded until the account changes (pageCache),
// so that a page read again costs one version read; support staff's are
// read every time (their listings span accounts). The bytes are shared
// with the cache and other callers: they must not be modified.
func (s *Store) TicketsWithCommentsEncoded(ctx context.Context, actor Actor, f TicketFilter, enc *TicketPageEncoding) ([]byte, error) {
	load := func() ([]byte, error) {
		page, err := s.TicketsWithComments(ctx, actor, f)
		if err != nil {
			return nil, err
		}
		return enc.encode(page), nil
	}
	accountID, err := actor.ownAccount()
	if err != nil || actor.isStaff() || f.AccountID != "" || f.Assignee != "" || f.MinAge != 0 {
		// Not an owner's own listing, or one that depends on the clock or
		// on more than the account: TicketsWithComments judges it.
		return load()
	}
	key := pageKey{account: accountID, by: enc, query: queryKey(strings.Join(f.Statuses, ","),
		strings.Join(f.APIStatuses, ","), strings.Join(f.Types, ","), strings.Join(f.Severities, ","),
		f.OrderBy, f.Direction, f.PageToken, strconv.Itoa(f.Limit))}
	return s.ticketPages.page(ctx, s, key, load)
}

package models

import (
	"context"
	"slices"
	"sync"
)

// The API's ticket list carries every listed ticket's comments. Read from
// the database on every list, they made its cost grow with every comment
// on the page's tickets (issue 24: in the 200-client load test the list went
// from 5% of the server's CPU in the first seconds to 14% in the last, its
// comment read from a third to more than half of it). Yet comments are
// never edited, nor deleted one by one (migration 0012), and a ticket's are
// numbered from 0 (the description) without gaps under the ticket's lock
// (checkCommentFits); so the first n comments read once stay its first n,
// in every process, and a ticket whose row counts n comments needs none of
// them read again. commentCache keeps them; a list reads only the comments
// of tickets with more than the cache holds, from the first one missing.

// maxCachedCommentBytes bounds what a commentCache holds, in bytes of text
// and per-comment overhead: the load test's accounts' first pages take
// about 2 MiB.
const maxCachedCommentBytes = 4 << 20

// commentOverhead is what a cached comment costs beside its text: the
// struct, its ids and time.
const commentOverhead = 160

// commentCache keeps tickets' comments by ticket id, oldest first.
type commentCache struct {
	mu      sync.Mutex
	entries boundedMap[string, *cachedComments] // costs in bytes
}

type cachedComments struct {
	account  string
	comments []TicketComment // seq 0 to len-1; never modified once cached
}

func newCommentCache(maxBytes int) *commentCache {
	// One long conversation may take a quarter of the cache, so that it
	// cannot empty it.
	return &commentCache{entries: newBoundedMap[string, *cachedComments](maxBytes, maxBytes/4)}
}

// get sets cached[i] to the cached comments of tickets[i], nil when none,
// under one lock for the page. The slices are shared: they must not be
// modified, and their capacity is their length so that appending copies.
func (c *commentCache) get(tickets []Ticket, cached [][]TicketComment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range tickets {
		if e, ok := c.entries.get(tickets[i].ID); ok && e.account == tickets[i].AccountID {
			cached[i] = e.comments[:len(e.comments):len(e.comments)]
		}
	}
}

// put keeps comments (seq 0 to len-1) unless the cache holds more already.
func (c *commentCache) put(account, ticket string, comments []TicketComment) {
	cost := 0
	for i := range comments {
		cost += commentOverhead + len(comments[i].Body) + len(comments[i].Author)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries.get(ticket); ok && len(old.comments) >= len(comments) {
		return
	}
	c.entries.put(ticket, &cachedComments{account: account, comments: comments}, cost)
}

// withComments loads the comments of tickets: from the cache for each
// ticket whose row's count it covers, the rest in one query, from the
// first comment the cache lacks. A ticket gets the comments its row counts
// when they are cached, else every comment read (one committed after the
// row was read included, as before the cache). The comments are shared
// with the cache: callers must not modify them.
func (s *Store) withComments(ctx context.Context, tickets []Ticket) ([]TicketDetail, error) {
	out := make([]TicketDetail, len(tickets))
	cached := make([][]TicketComment, len(tickets))
	s.comments.get(tickets, cached)
	var ids []string
	var missing []int // of tickets, those ids names
	from := -1        // the lowest seq to read
	for i, t := range tickets {
		out[i] = TicketDetail{Ticket: t, Comments: []TicketComment{}}
		switch n := t.CommentRows; {
		case n > 0 && len(cached[i]) >= n:
			out[i].Comments = cached[i][:n:n]
			continue
		case n == 0: // a ticket built in Go, not read: its comments are read whole
			cached[i] = nil
		case cached[i] != nil:
			out[i].Comments = cached[i]
		}
		ids, missing = append(ids, t.ID), append(missing, i)
		if from < 0 || len(cached[i]) < from {
			from = len(cached[i])
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	comments, err := s.readComments(ctx, tickets, ids, from)
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(ids))
	for _, i := range missing {
		at[tickets[i].ID] = i
	}
	for _, c := range comments {
		i := at[c.TicketID]
		if c.Seq >= len(cached[i]) { // below it, the cached prefix holds it already
			out[i].Comments = append(out[i].Comments, c)
		}
	}
	for _, i := range missing {
		if d := &out[i]; numberedFromZero(d.Comments) {
			s.comments.put(d.AccountID, d.ID, d.Comments)
		}
	}
	return out, nil
}

// readComments reads the comments numbered from on of the tickets with
// the given ids, in one query.
func (s *Store) readComments(ctx context.Context, tickets []Ticket, ids []string, from int) ([]TicketComment, error) {
	q := s.read(ctx).Where("ticket_id IN ?", ids)
	if account := tickets[0].AccountID; !slices.ContainsFunc(tickets, func(t Ticket) bool { return t.AccountID != account }) {
		// One account's (every owner's list): a range of the key.
		q = q.Where("account_id = ?", account).Order("account_id, ticket_id, seq")
	} else {
		q = q.Order("ticket_id, seq")
	}
	if from > 0 {
		q = q.Where("seq >= ?", from)
	}
	return findComments(q.Model(&TicketComment{}))
}

// numberedFromZero reports whether comments are a ticket's first ones, as
// the cache keeps them: seq 0, 1, 2 and so on.
func numberedFromZero(comments []TicketComment) bool {
	for i := range comments {
		if comments[i].Seq != i {
			return false
		}
	}
	return len(comments) > 0
}

package models

import "sync"

// An owner's ticket page was read and encoded whole whenever the account
// had changed, which under the load test was at almost every read (issue
// 24): the twelve columns of a hundred rows, every comment, and the JSON
// of all of it, to show one new comment. ticketFragments keeps each
// ticket's encoding with the state it shows (ticketState), so a page
// reads its tickets' state, and text only for tickets whose state is not
// the one cached.

// maxCachedFragmentBytes bounds what a ticketFragments holds, in bytes of
// encodings and per-entry overhead: several full pages, each at most
// TicketListPageBudget.
const maxCachedFragmentBytes = 8 << 20

// fragmentOverhead is what a cached encoding costs beside its bytes: the
// map slot, the key and the entry.
const fragmentOverhead = 160

// ticketState is what may change of what a ticket's encoding shows. No one
// column changes on every change: updated_at is as fine as the clock (an
// injected one stands still), comment_rows counts only comments. So the
// state is every changing column the list shows (status, severity,
// resolved_at, updated_at) and the comments' count and size; the rest is
// fixed at creation (id, subject, description, type, created_at), and
// comments are never edited and are numbered without gaps, so the first n
// are always the same n (commentCache). A ticket in the same state shows
// the same bytes. Attachments and the assignee are not shown.
type ticketState struct {
	account      string
	status       string
	severity     string // "" for none: severities are never empty
	updatedAt    int64  // Unix nanoseconds
	resolvedAt   int64  // Unix nanoseconds; 0 while unresolved
	resolved     bool
	commentRows  int
	commentBytes int64
}

func stateOf(t *Ticket) ticketState {
	st := ticketState{account: t.AccountID, status: t.Status, updatedAt: t.UpdatedAt.UnixNano(),
		commentRows: t.CommentRows, commentBytes: t.CommentBytes}
	if t.Severity != nil {
		st.severity = *t.Severity
	}
	if t.ResolvedAt != nil {
		st.resolved, st.resolvedAt = true, t.ResolvedAt.UnixNano()
	}
	return st
}

// ticketFragment is one ticket's encoding in one state, with what a page
// is cut by (TicketsWithComments).
type ticketFragment struct {
	state     ticketState
	headBytes int64 // of the subject and description, as stored
	jsonSize  int64 // ticketJSONSize
	jsonBound int64 // ticketJSONBound
	body      []byte
}

// ticketFragments keeps tickets' encodings by ticket and encoding, one
// state each.
type ticketFragments struct {
	mu      sync.Mutex
	entries boundedMap[fragmentKey, *ticketFragment] // costs in bytes
}

type fragmentKey struct {
	ticket string
	by     *TicketPageEncoding
}

func newTicketFragments(maxBytes int) *ticketFragments {
	// One ticket may take a quarter of the cache, so that it cannot empty it.
	return &ticketFragments{entries: newBoundedMap[fragmentKey, *ticketFragment](maxBytes, maxBytes/4)}
}

// get sets found[i] to the encoding by enc of tickets[i] in its state (its
// row's, as ticketStateColumns read it), nil when none is cached, under one
// lock for the page.
func (c *ticketFragments) get(enc *TicketPageEncoding, tickets []Ticket, found []*ticketFragment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range tickets {
		if f, ok := c.entries.get(fragmentKey{tickets[i].ID, enc}); ok && f.state == stateOf(&tickets[i]) {
			found[i] = f
		}
	}
}

// put keeps f as the encoding by enc of ticket, in place of another state's.
func (c *ticketFragments) put(enc *TicketPageEncoding, ticket string, f *ticketFragment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.put(fragmentKey{ticket, enc}, f, len(f.body)+len(ticket)+fragmentOverhead)
}

// newTicketFragment encodes d by enc. d must hold the comments its row
// counts, no more.
func newTicketFragment(enc *TicketPageEncoding, d *TicketDetail) *ticketFragment {
	return &ticketFragment{state: stateOf(&d.Ticket), headBytes: int64(len(d.Subject) + len(d.Description)),
		jsonSize: ticketJSONSize(d.Subject, d.Description, d.Comments), jsonBound: ticketJSONBound(d),
		body: enc.ticket(d)}
}

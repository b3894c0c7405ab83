package models

import "fmt"

// Bounds on one ticket's text. A ticket is read whole (the API's ticket,
// the dashboard's page), so without them one account could make each read
// cost what it liked: a ticket with 1,000 comments of 64 KB made a list
// answer of 65 MB, and a few parallel reads took gigabytes. Both are
// checked under the ticket's row lock, so concurrent comments cannot
// overshoot them.
const (
	// MaxTicketComments is how many comments a ticket takes after its
	// description: far more than a support conversation needs.
	MaxTicketComments = 500
	// MaxTicketTextBytes bounds a ticket's subject, description and
	// comments together, in bytes as stored: sixteen comments of the
	// largest size, or hundreds of ordinary ones.
	MaxTicketTextBytes = 1 << 20
)

// TicketListTextBudget bounds the text of one page of the API's ticket
// list, which carries every comment: a page ends early, with a page
// token, once its tickets' text reaches it, and always holds at least one
// ticket. With MaxTicketTextBytes that keeps a page within a few MiB.
const TicketListTextBudget = 1 << 20

// checkCommentFits refuses a comment that would take t past
// MaxTicketComments or MaxTicketTextBytes. Call it with t locked, and
// use the count it returns as the new comment's seq.
func checkCommentFits(t *Ticket, body string) (int, error) {
	if t.CommentRows-1 >= MaxTicketComments {
		return 0, InvalidField("comment", fmt.Sprintf("the ticket has reached its %d comments; open a new ticket", MaxTicketComments))
	}
	if int64(len(t.Subject))+t.CommentBytes+int64(len(body)) > MaxTicketTextBytes {
		return 0, InvalidField("comment.body", fmt.Sprintf(
			"would take the ticket's text (subject, description and comments) past %d bytes; open a new ticket", MaxTicketTextBytes))
	}
	return t.CommentRows, nil
}

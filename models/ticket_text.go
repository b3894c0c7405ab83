package models

import (
	"fmt"

	"gorm.io/gorm"
)

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
	// MaxTicketTextBytes bounds a ticket's text as one read of it carries
	// it (ticketJSONText): sixteen comments of the largest size, or
	// hundreds of ordinary ones.
	MaxTicketTextBytes = 1 << 20
)

// TicketListTextBudget bounds the text of one page of the API's ticket
// list, which carries every comment, counted as ticketJSONText does: a
// page ends early, with a page token, before the ticket that would take
// it past the budget, and always holds at least one ticket. As no ticket
// holds more than MaxTicketTextBytes, no page's text exceeds the budget.
const TicketListTextBudget = 1 << 20

// ticketJSONText is the size of a ticket's text as the API's JSON carries
// it: the subject, the description, and every comment's body (the
// description again, as the first), each as JSON escapes it, so that a
// text of "<" counts the six bytes of \u003c it is sent as.
func ticketJSONText(subject, description string, comments []string) int64 {
	n := jsonTextLen(subject) + jsonTextLen(description)
	for _, c := range comments {
		n += jsonTextLen(c)
	}
	return n
}

// ticketRawText is the same text's size in bytes as stored, which the
// ticket's row counts: never more than ticketJSONText, and never less
// than a sixth of it.
func ticketRawText(t *Ticket) int64 {
	return int64(len(t.Subject)+len(t.Description)) + t.CommentBytes
}

// checkCommentFits refuses a comment that would take t past
// MaxTicketComments or MaxTicketTextBytes. Call it with t locked, and
// use the count it returns as the new comment's seq. The comments' text
// is read only when the stored sizes cannot settle it: when the text
// might pass the cap once escaped but does not as stored.
func checkCommentFits(tx *gorm.DB, t *Ticket, body string) (int, error) {
	if t.CommentRows-1 >= MaxTicketComments {
		return 0, InvalidField("comment", fmt.Sprintf("the ticket has reached its %d comments; open a new ticket", MaxTicketComments))
	}
	tooLong := InvalidField("comment.body", fmt.Sprintf(
		"would take the ticket's text (subject, description and comments, as JSON sends them) past %d bytes; open a new ticket",
		MaxTicketTextBytes))
	raw := ticketRawText(t) + int64(len(body))
	switch {
	case raw > MaxTicketTextBytes:
		return 0, tooLong
	case raw*maxJSONExpansion <= MaxTicketTextBytes:
		return t.CommentRows, nil
	}
	var bodies []string
	if err := tx.Model(&TicketComment{}).Where("account_id = ? AND ticket_id = ?", t.AccountID, t.ID).
		Pluck("body", &bodies).Error; err != nil {
		return 0, err
	}
	if ticketJSONText(t.Subject, t.Description, append(bodies, body)) > MaxTicketTextBytes {
		return 0, tooLong
	}
	return t.CommentRows, nil
}

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
	// TicketListPageBudget bounds one page of the API's ticket list, which
	// carries every comment, in bytes of its answer: a page ends early,
	// with a page token, before the ticket that would take it past the
	// budget, and always holds at least one ticket.
	TicketListPageBudget = 1 << 20
	// TicketListEnvelope bounds the answer around a page's tickets:
	// {"data": {"tickets": [...], "page_token": "..."}}.
	TicketListEnvelope = 1 << 10
	// MaxTicketTextBytes bounds a ticket as the API's JSON carries it
	// (ticketJSONSize), so that any ticket fits a page alone: sixteen
	// comments of the largest size, or hundreds of ordinary ones.
	MaxTicketTextBytes = TicketListPageBudget - TicketListEnvelope
)

// The API's JSON of a ticket and of a comment around their text, in bytes
// at most: a ticket's keys, id, type, severity, status, times and
// punctuation, and a comment's keys, time and punctuation. handlers/api's
// tests hold them against its encoder.
const (
	TicketJSONFrame  = 320
	CommentJSONFrame = 64
	// maxAuthorJSON bounds a comment's author (an email of up to 254
	// characters, or "support") as JSON writes it.
	maxAuthorJSON = 254 * maxJSONExpansion
)

// ticketJSONSize is the most bytes the API's JSON of a ticket takes: its
// frame, subject and description, and each comment's frame, body (the
// description again, as the first) and author, text counted as JSON
// escapes it, so that a text of "<" counts the six bytes of \u003c.
func ticketJSONSize(subject, description string, comments []TicketComment) int64 {
	n := TicketJSONFrame + jsonTextLen(subject) + jsonTextLen(description)
	for _, c := range comments {
		n += CommentJSONFrame + jsonTextLen(c.Body) + jsonTextLen(c.Author)
	}
	return n
}

// ticketRawText is the size in bytes, as stored, of the text a ticket's
// JSON carries (subject, description, and the comments' bodies), which
// its row counts: less than ticketJSONSize, and more than a sixth of it
// but for the frames and authors.
func ticketRawText(t *Ticket) int64 {
	return int64(len(t.Subject)+len(t.Description)) + t.CommentBytes
}

// checkCommentFits refuses a comment by author that would take t past
// MaxTicketComments or MaxTicketTextBytes. Call it with t locked, and
// use the count it returns as the new comment's seq. The comments are
// read only when the ticket's row cannot settle it: when the ticket might
// pass the cap once escaped but does not as stored.
func checkCommentFits(tx *gorm.DB, t *Ticket, author, body string) (int, error) {
	if t.CommentRows-1 >= MaxTicketComments {
		return 0, InvalidField("comment", fmt.Sprintf("the ticket has reached its %d comments; open a new ticket", MaxTicketComments))
	}
	tooLong := InvalidField("comment.body", fmt.Sprintf(
		"would take the ticket (subject, description and comments, as the API's JSON sends them) past %d bytes; open a new ticket",
		MaxTicketTextBytes))
	raw := ticketRawText(t) + int64(len(body))
	atMost := TicketJSONFrame + maxJSONExpansion*raw + int64(t.CommentRows+1)*(CommentJSONFrame+maxAuthorJSON)
	switch {
	case raw > MaxTicketTextBytes:
		return 0, tooLong
	case atMost <= MaxTicketTextBytes:
		return t.CommentRows, nil
	}
	var comments []TicketComment
	if err := tx.Select("body", "author").Where("account_id = ? AND ticket_id = ?", t.AccountID, t.ID).
		Find(&comments).Error; err != nil {
		return 0, err
	}
	comments = append(comments, TicketComment{Body: body, Author: author})
	if ticketJSONSize(t.Subject, t.Description, comments) > MaxTicketTextBytes {
		return 0, tooLong
	}
	return t.CommentRows, nil
}

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

// ticketText is what a ticket's comments hold, counted by the database
// without reading their text out.
type ticketText struct {
	TicketID  string
	Comments  int    // rows, the description included
	Bytes     int64  // of every comment's body
	Requester string // author of the description
}

// ticketTexts counts the comments of tickets in one query.
func ticketTexts(db *gorm.DB, ids []string) (map[string]ticketText, error) {
	out := make(map[string]ticketText, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []ticketText
	err := db.Model(&TicketComment{}).
		Select("ticket_id, COUNT(*) AS comments, COALESCE(SUM(octet_length(body)), 0) AS bytes, "+
			"MAX(CASE WHEN seq = 0 THEN author END) AS requester").
		Where("ticket_id IN ?", ids).Group("ticket_id").Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.TicketID] = r
	}
	return out, nil
}

// checkCommentFits refuses a comment that would take t past
// MaxTicketComments or MaxTicketTextBytes. Call it with t locked, and
// use the count it returns as the new comment's seq.
func checkCommentFits(tx *gorm.DB, t *Ticket, body string) (int, error) {
	texts, err := ticketTexts(tx, []string{t.ID})
	if err != nil {
		return 0, err
	}
	have := texts[t.ID]
	if have.Comments-1 >= MaxTicketComments {
		return 0, InvalidField("comment", fmt.Sprintf("the ticket has reached its %d comments; open a new ticket", MaxTicketComments))
	}
	if int64(len(t.Subject))+have.Bytes+int64(len(body)) > MaxTicketTextBytes {
		return 0, InvalidField("comment.body", fmt.Sprintf(
			"would take the ticket's text (subject, description and comments) past %d bytes; open a new ticket", MaxTicketTextBytes))
	}
	return have.Comments, nil
}

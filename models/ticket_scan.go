package models

import (
	"database/sql"

	"gorm.io/gorm"
)

// The API's ticket list is one of the hottest reads, and GORM's scan
// (scanIntoStruct, by reflection, per field per row) cost more than the
// query under load (issue 24). Its rows are scanned here into the fields
// directly, from columns named once.

// ticketColumns are a ticket row's columns, in the order scanTicket reads
// them; the description is last so that a list without text leaves it out.
const (
	ticketColumns = "account_id, id, created_by_user_id, subject, request_type, severity, status, " +
		"instance_ip, instance_id, cluster_id, source, created_at, updated_at, resolved_at, " +
		"assignee_user_id, waiting_since, comment_rows, comment_bytes, description_author"
	ticketColumnsWithText = ticketColumns + ", description"
	// ticketListColumns are what an owner's API list reads: what its JSON
	// shows, what the comment cache and the page budget go by, and the
	// keys pages are cut at. The driver fetches each column of each row
	// on its own, so the eight others cost a third of the list's read.
	ticketListColumns = "account_id, id, subject, request_type, severity, status, created_at, updated_at, " +
		"resolved_at, comment_rows, comment_bytes, description"
	// ticketStateColumns are what an owner's encoded list reads first: the
	// keys it is ordered and cut at, and what may change of what its JSON
	// shows (ticketState); the text is read only for tickets whose
	// encoding is not cached (ticketFragments). The account is the
	// owner's, known without reading it.
	ticketStateColumns = "id, status, severity, created_at, updated_at, resolved_at, comment_rows, comment_bytes"
)

// ticketRead is which of a ticket's columns findTickets reads.
type ticketRead int

const (
	ticketWithoutText ticketRead = iota // ticketColumns
	ticketWithText                      // ticketColumnsWithText
	ticketForList                       // ticketListColumns
	ticketForState                      // ticketStateColumns
)

// ticketReadColumns are the columns of each ticketRead.
var ticketReadColumns = [...]string{ticketWithoutText: ticketColumns, ticketWithText: ticketColumnsWithText,
	ticketForList: ticketListColumns, ticketForState: ticketStateColumns}

// findTickets runs q, selecting the columns read names, and scans every
// row; the columns not read are left zero.
func findTickets(q *gorm.DB, read ticketRead) ([]Ticket, error) {
	rows, err := q.Select(ticketReadColumns[read]).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Ticket
	for rows.Next() {
		var t Ticket
		if err := rows.Scan(ticketDest(&t, read)...); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ticketDest is where findTickets scans the columns read names into.
func ticketDest(t *Ticket, read ticketRead) []any {
	switch read {
	case ticketForState:
		return []any{&t.ID, &t.Status, &t.Severity, &t.CreatedAt, &t.UpdatedAt, &t.ResolvedAt, &t.CommentRows,
			&t.CommentBytes}
	case ticketForList:
		return []any{&t.AccountID, &t.ID, &t.Subject, &t.RequestType, &t.Severity, &t.Status, &t.CreatedAt,
			&t.UpdatedAt, &t.ResolvedAt, &t.CommentRows, &t.CommentBytes, &t.Description}
	}
	dest := []any{&t.AccountID, &t.ID, &t.CreatedByUserID, &t.Subject, &t.RequestType, &t.Severity, &t.Status,
		&t.InstanceIP, &t.InstanceID, &t.ClusterID, &t.Source, &t.CreatedAt, &t.UpdatedAt, &t.ResolvedAt,
		&t.AssigneeUserID, &t.WaitingSince, &t.CommentRows, &t.CommentBytes, &t.DescriptionAuthor}
	if read == ticketWithText {
		dest = append(dest, &t.Description)
	}
	return dest
}

// commentColumns are a comment row's columns, in scanComments' order.
const commentColumns = "account_id, ticket_id, seq, id, author_user_id, author, body, created_at"

// findComments runs q, selecting commentColumns, and scans every row.
func findComments(q *gorm.DB) ([]TicketComment, error) {
	rows, err := q.Select(commentColumns).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanComments(rows)
}

func scanComments(rows *sql.Rows) ([]TicketComment, error) {
	var out []TicketComment
	for rows.Next() {
		var c TicketComment
		if err := rows.Scan(&c.AccountID, &c.TicketID, &c.Seq, &c.ID, &c.AuthorUserID, &c.Author, &c.Body, &c.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

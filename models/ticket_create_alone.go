package models

import (
	"cloudplane/models/database"
)

// createTicketAlone is CreateTicket's write on PostgreSQL as one statement:
// the ticket, its description as comment 0, the ticket.created event with
// a pending delivery for each enabled endpoint of the account that
// receives it (locked FOR KEY SHARE, as enqueueEvent's are), the
// account's new version and the audit event. As a transaction of BEGIN,
// six statements and COMMIT a ticket took eight round trips, and at 400
// tickets/s those round trips were most of what PostgreSQL and the
// server's database code spent (issue 24's webhook benchmark).
//
// The endpoints are those enqueueEvent gives a delivery: enabled, and
// receiving the type (WebhookEndpoint.Receives, here over the stored
// JSON); TestCreatedTicketIsWhole holds the two to each other.
//
// The foreign keys and the comment counting trigger run at the end of
// the statement, so they see the ticket its first part inserted. A
// delivery's id is the event's time part and 80 random bits, the shape
// NewID gives. t gets the counts the trigger writes, as addComment gives
// them.
func createTicketAlone(actor Actor, t *Ticket, event auditRow) (database.Statement, error) {
	now := t.CreatedAt
	comment := TicketComment{ID: NewID(), Author: commentAuthor(actor), Body: t.Description}
	if actor.UserID != "" {
		comment.AuthorUserID = &actor.UserID
	}
	t.CommentRows, t.CommentBytes, t.DescriptionAuthor = 1, int64(len(t.Description)), &comment.Author
	ev := WebhookEvent{ID: NewID(), Type: EventTicketCreated}
	payload, err := eventPayload(ev.ID, ev.Type, now, ticketEventData(t), false)
	if err != nil {
		return database.Statement{}, err
	}
	args := []any{
		t.AccountID, // the account's key share
		ev.Type,
		t.AccountID, t.ID, t.CreatedByUserID, t.Subject, t.Description, t.RequestType, t.Severity, t.Status,
		t.InstanceIP, t.InstanceID, t.ClusterID, t.Source, now, now, t.WaitingSince,
		comment.ID, comment.AuthorUserID, comment.Author, now,
		ev.ID, ev.Type, string(payload), now,
		now, now, now,
		newAccountVersion(),
	}
	return database.Statement{SQL: createTicketAloneSQL, Args: append(args, event.args...)}, nil
}

// createTicketAloneSQL takes its locks in the order the transaction did,
// which is the order of every write of an account's: the account's row
// and the endpoints (key shares) before the account's version. PostgreSQL
// runs the CTEs the main statement does not read after it, the last
// first, and checks foreign keys at the statement's end; so the locks
// are taken explicitly, by the ticket's insert, which the main statement
// reads first (its condition reads both counts: a count nothing read
// would not be run). Without them a ticket took the version before a deleted
// endpoint's lock, which the deletion held while waiting for the version
// (TestTicketsWhileEndpointsChange: deadlocks).
var createTicketAloneSQL = database.Numbered(`WITH account AS (
 SELECT id FROM accounts WHERE id = ? FOR KEY SHARE
), endpoint AS (
 SELECT p.id FROM webhook_endpoints AS p, account
 WHERE p.account_id = account.id AND p.enabled AND p.event_types::jsonb @> jsonb_build_array(?::text)
 FOR KEY SHARE OF p
), locked AS (
 SELECT (SELECT count(*) FROM account) AS accounts, (SELECT count(*) FROM endpoint) AS endpoints
), ticket AS (
 INSERT INTO tickets (account_id, id, created_by_user_id, subject, description, request_type, severity, status,
  instance_ip, instance_id, cluster_id, source, created_at, updated_at, waiting_since)
 SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz FROM locked WHERE accounts = 1 AND endpoints >= 0
 RETURNING account_id, id, description
), comment AS (
 INSERT INTO ticket_comments (account_id, ticket_id, seq, id, author_user_id, author, body, created_at)
 SELECT account_id, id, 0, ?, ?, ?, description, ?::timestamptz FROM ticket
), event AS (
 INSERT INTO webhook_events (id, account_id, type, ticket_id, payload, created_at)
 SELECT ?, account_id, ?, id, ?, ?::timestamptz FROM ticket RETURNING id
), delivery AS (
 INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, next_attempt_at, tries, attempts,
  lease_owner, last_status_code, last_error, created_at, updated_at)
 SELECT left(event.id, 12) || left(md5(random()::text || endpoint.id), 20), event.id, endpoint.id, '` + DeliveryPending + `',
  ?::timestamptz, 0, 0, '', 0, '', ?::timestamptz, ?::timestamptz FROM event, endpoint
), version AS (
 INSERT INTO account_versions (account_id, version) SELECT account_id, ?::bigint FROM ticket ` + replaceAccountVersion + `
)
INSERT INTO audit_events (` + auditEventColumns + `) ` + auditEventValuesSQL + ` FROM ticket`)

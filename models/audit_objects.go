package models

import (
	"context"
	"strings"

	"gorm.io/gorm"
)

// AuditObject is an object an audit event names in its resource LRNs, as
// it is now: what it is called and, for an attachment, its ticket.
type AuditObject struct {
	Kind   string // the LRN's kind: instance, ticket, user...
	ID     string
	Name   string // its name, URL, subject or email now
	Parent string // an attachment's ticket id
}

// AuditObjects looks up the objects events name that still exist and that
// the actor may open: its account's objects (users as members of it) for
// people of an account; tickets and their attachments, in any account,
// for support staff, who open no other account's pages. It is keyed by
// LRN; an object that is gone, or another account's, is absent. One query
// per kind of object named.
func (s *Store) AuditObjects(ctx context.Context, actor Actor, events []AuditEvent) (map[string]AuditObject, error) {
	ids := map[string][]string{}
	for _, ev := range events {
		for _, l := range ev.ResourceLRNs {
			kind, id, ok := strings.Cut(strings.TrimPrefix(l, "lrn:cloud:"), ":")
			if ok && IsID(id) {
				ids[kind] = append(ids[kind], id)
			}
		}
	}
	out := map[string]AuditObject{}
	db := s.read(ctx)
	accountID := actor.AccountID
	staff := actor.isStaff()
	if !staff && accountID == "" {
		return out, nil
	}
	for kind, list := range ids {
		q, ok := auditObjectQueries[kind]
		if !ok || (staff && kind != "ticket" && kind != "ticket_attachment") {
			continue
		}
		var rows []AuditObject
		tx := db.Table(q.table).Select(q.columns).Where(q.table+".id IN ?", list)
		if !staff {
			account := q.account
			if account == "" {
				account = q.table + ".account_id"
			}
			tx = tx.Where(account+" = ?", accountID)
		}
		if q.where != nil {
			tx = q.where(tx)
		}
		if err := tx.Scan(&rows).Error; err != nil {
			return nil, err
		}
		for _, r := range rows {
			r.Kind = kind
			out[lrn(kind, r.ID)] = r
		}
	}
	return out, nil
}

// auditObjectQuery reads the objects of one kind: columns give id, name
// and parent (as name and parent).
type auditObjectQuery struct {
	table, columns string
	account        string // the column of its account; table.account_id when ""
	where          func(*gorm.DB) *gorm.DB
}

// auditObjectQueries are the kinds of object the audit log links to.
var auditObjectQueries = map[string]auditObjectQuery{
	"instance":         {table: "instances", columns: "id, name"},
	"filesystem":       {table: "filesystems", columns: "id, name"},
	"ssh_key":          {table: "ssh_keys", columns: "id, name"},
	"fabric_partition": {table: "fabric_partitions", columns: "id, name"},
	"firewall_ruleset": {table: "firewall_rulesets", columns: "id, name"},
	"api_key": {table: "api_keys", columns: "id, name",
		where: func(tx *gorm.DB) *gorm.DB { return tx.Where("revoked_at IS NULL") }},
	"ticket":  {table: "tickets", columns: "id, subject AS name"},
	"webhook": {table: "webhook_endpoints", columns: "id, url AS name"},
	"ticket_attachment": {table: "ticket_attachments", columns: "id, filename AS name, ticket_id AS parent",
		where: func(tx *gorm.DB) *gorm.DB { return tx.Where("status <> ?", AttachmentDeleted) }},
	// A user is named in an account's log as its member.
	"user": {table: "users", columns: "users.id, users.email AS name", account: "memberships.account_id",
		where: func(tx *gorm.DB) *gorm.DB { return tx.Joins("JOIN memberships ON memberships.user_id = users.id") }},
}

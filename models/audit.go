package models

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// Audit catalogue constants.
const (
	AuditServiceName    = "cloud"
	AuditCatalogVersion = "1.0"
)

// AuditEvent records one change of state. It is written in the same
// transaction as the change, so an event exists if and only if the change
// committed.
//
// Its key and its index serve the audit log's keyset pages (AuditEvents):
// each ends in (event_time, id), the page order, so that a page is one
// range scan whatever its depth, with or without a resource_type filter.
// On SQLite the key also clusters each account's events (migration 0011).
type AuditEvent struct {
	AccountID         string       `gorm:"primaryKey;size:32;not null;index:idx_audit_account_type_time,priority:1"`
	EventTime         time.Time    `gorm:"primaryKey;not null;index:idx_audit_account_type_time,priority:4"`
	ID                string       `gorm:"primaryKey;size:32;not null;uniqueIndex:idx_audit_events_id;index:idx_audit_account_type_time,priority:5"`
	ServiceName       string       `gorm:"size:32;not null;index:idx_audit_account_type_time,priority:2"`
	ResourceName      string       `gorm:"size:64;not null;index:idx_audit_account_type_time,priority:3"`
	Action            string       `gorm:"size:32;not null"`
	CatalogVersion    string       `gorm:"size:16;not null"`
	ActorLRN          *string      `gorm:"size:128"`
	ActorRole         *string      `gorm:"size:16"` // owner, support, operator, system; nil for cloudplane itself
	ResourceLRNs      []string     `gorm:"column:resource_lrns;serializer:json;not null"`
	ResourceOwnerLRN  *string      `gorm:"size:128"`
	RequestAPIKeyLRN  *string      `gorm:"size:128"`
	AdditionalDetails AuditDetails `gorm:"type:text;not null"`
}

// audit writes one audit event inside tx. Every domain operation that
// changes state calls it exactly once. It also gives the account a new
// AccountVersion, which is what tells the list caches that the account's
// objects changed.
func (s *Store) audit(tx *gorm.DB, actor Actor, accountID, resource, action string, resourceLRNs []string, details map[string]any) error {
	row, err := s.auditRow(actor, accountID, resource, action, resourceLRNs, details)
	if err != nil {
		return err
	}
	return row.write(tx)
}

// auditRow is an audit event ready to write: built, and its values
// encoded, before its write waits for SQLite's one writer, so that the
// writer spends its time on what only it can do.
type auditRow struct {
	accountID string
	args      []any // in the order of auditEventColumns
}

// auditRow builds the event audit writes, without writing it.
func (s *Store) auditRow(actor Actor, accountID, resource, action string, resourceLRNs []string, details map[string]any) (auditRow, error) {
	ev, err := s.auditEvent(actor, accountID, resource, action, resourceLRNs, details)
	if err != nil {
		return auditRow{}, err
	}
	args, err := auditEventArgs(&ev)
	return auditRow{accountID: accountID, args: args}, err
}

// write records the event in tx and, for an account's, gives the account
// a new version. On PostgreSQL the two are one statement, a round trip
// fewer for every change of an account (SQLite has no INSERT inside WITH,
// and its writer makes no round trips).
func (r auditRow) write(tx *gorm.DB) error {
	switch {
	case r.accountID == "":
		return rawOf(tx).exec(insertAuditEventSQL, r.args...)
	case tx.Dialector.Name() == "postgres":
		args := append(r.args[:len(r.args):len(r.args)], r.accountID, newAccountVersion())
		return rawOf(tx).exec(versionedAuditEventSQL, args...)
	}
	if err := bumpAccountVersion(tx, r.accountID); err != nil {
		return err
	}
	return rawOf(tx).exec(insertAuditEventSQL, r.args...)
}

// auditEvent builds the event audit writes, without writing it.
func (s *Store) auditEvent(actor Actor, accountID, resource, action string, resourceLRNs []string, details map[string]any) (AuditEvent, error) {
	if !slices.Contains(AuditResources, resource) {
		return AuditEvent{}, fmt.Errorf("audit: resource %q is missing from AuditResources", resource)
	}
	encoded, err := newAuditDetails(details)
	if err != nil {
		return AuditEvent{}, err
	}
	if resourceLRNs == nil {
		resourceLRNs = []string{}
	}
	ev := AuditEvent{
		ID:                NewID(),
		AccountID:         accountID,
		EventTime:         s.Now(),
		ServiceName:       AuditServiceName,
		ResourceName:      resource,
		Action:            action,
		CatalogVersion:    AuditCatalogVersion,
		ActorLRN:          actor.lrn(),
		ActorRole:         actor.role(),
		ResourceLRNs:      resourceLRNs,
		AdditionalDetails: encoded,
	}
	if accountID != "" {
		owner := lrn("account", accountID)
		ev.ResourceOwnerLRN = &owner
	}
	if actor.APIKeyID != "" {
		key := lrn("api_key", actor.APIKeyID)
		ev.RequestAPIKeyLRN = &key
	}
	return ev, nil
}

// auditEventColumns are the columns of an AuditEvent, in the order of
// auditEventArgs.
const auditEventColumns = "id, account_id, event_time, service_name, resource_name, action, catalog_version, " +
	"actor_lrn, actor_role, resource_lrns, resource_owner_lrn, request_api_key_lrn, additional_details"

// auditEventValuesSQL selects an AuditEvent's auditEventColumns from
// placeholders, cast where PostgreSQL cannot infer a SELECT list's type,
// for an INSERT ... SELECT inside a larger statement.
const auditEventValuesSQL = "SELECT ?, ?, ?::timestamptz, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"

// insertAuditEventSQL writes every column of an AuditEvent.
const insertAuditEventSQL = "INSERT INTO audit_events (" + auditEventColumns + ") " +
	"VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"

// versionedAuditEventSQL is insertAuditEventSQL with the account's new
// version ($14 the account, $15 the version), on PostgreSQL.
const versionedAuditEventSQL = "WITH version AS (INSERT INTO account_versions (account_id, version) VALUES ($14, $15) " +
	replaceAccountVersion + ") " + insertAuditEventSQL

// auditEventArgs are ev's values in the order of auditEventColumns. The
// LRNs are encoded as GORM's serializer does, so GORM reads them back.
func auditEventArgs(ev *AuditEvent) ([]any, error) {
	lrns, err := json.Marshal(ev.ResourceLRNs)
	if err != nil {
		return nil, err
	}
	return []any{ev.ID, ev.AccountID, ev.EventTime, ev.ServiceName, ev.ResourceName,
		ev.Action, ev.CatalogVersion, ev.ActorLRN, ev.ActorRole, string(lrns), ev.ResourceOwnerLRN,
		ev.RequestAPIKeyLRN, string(ev.AdditionalDetails.orEmpty())}, nil
}

// LatestAuditEvents returns up to n of the newest events of the actor's
// account, newest first: the dashboard's "recent activity". The paginated
// listing is the API's. Support staff have no account and get CodeForbidden.
func (s *Store) LatestAuditEvents(ctx context.Context, actor Actor, n int) ([]AuditEvent, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	var events []AuditEvent
	err = s.read(ctx).Where("account_id = ?", accountID).
		Order("event_time DESC, id DESC").Limit(n).Find(&events).Error
	return events, err
}

package models

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gorm.io/gorm"
)

// AuditSearchWindow bounds a text search: the words are looked for among
// this many of the newest events that match the other filters, so a
// search costs at most that many rows whatever the log's size.
const AuditSearchWindow = 10000

// AuditTextMaxLength bounds the text searched for.
const AuditTextMaxLength = 100

// AuditResources are the resources audit events are recorded for, in the
// order the dashboard's filter offers them. audit refuses any other, so a
// new kind of event cannot be left out of the filter.
var AuditResources = []string{"instance", "ssh_key", "filesystem", "fabric_partition", "firewall_ruleset", "global_firewall_ruleset",
	"firewall_rules", "api_key", "session", "user", "account", "ticket", "ticket_attachment", "webhook", "webhook_delivery", "member", "invitation",
	"passkey", "sso_domain", "budget"}

// AuditActorRoles are the roles an event's actor may have had, as the
// actor filter takes them.
var AuditActorRoles = []string{RoleOwner, RoleMember, RoleViewer, RoleSupport, OperatorActor.Role, roleSystem}

func (in *AuditEventsInput) validateDashboardFilters(f *FieldErrors) {
	if in.ActorRole != "" && !slices.Contains(AuditActorRoles, in.ActorRole) {
		f.Add("actor", "must be one of "+strings.Join(AuditActorRoles, ", "))
	}
	text := strings.TrimSpace(in.Text)
	switch {
	case text == "":
		in.textPattern = ""
	case utf8.RuneCountInString(text) > AuditTextMaxLength:
		f.Add("text", "must be at most "+strconv.Itoa(AuditTextMaxLength)+" characters")
	case strings.ContainsFunc(text, isControl):
		f.Add("text", "must not contain control characters")
	default:
		in.textPattern = "%" + likeEscaper.Replace(jsonText(text)) + "%"
	}
}

func isControl(r rune) bool { return r < ' ' || r == 0x7f }

// jsonText is text as the details' JSON spells it (quotes, backslashes
// and <, >, & escaped), so what was typed matches what was stored.
func jsonText(text string) string {
	b, _ := json.Marshal(text) // a string always marshals
	return string(b[1 : len(b)-1])
}

// likeEscaper makes the text literal in a LIKE pattern with ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likeOperator matches without regard to case on both databases (SQLite's
// LIKE already ignores the case of ASCII letters).
func likeOperator(db *gorm.DB) string {
	if db.Dialector.Name() == "postgres" {
		return "ILIKE"
	}
	return "LIKE"
}

// AuditExportLimit caps an export of the audit log.
const AuditExportLimit = 10000

// auditExportBatch is how many events an export reads at a time.
const auditExportBatch = 500

// AuditExport is a validated export of the audit log: Each reads it.
type AuditExport struct {
	s         *Store
	accountID string
	in        AuditEventsInput
}

// ExportAuditEvents checks an export of the actor's audit log with the
// filters of AuditEvents (its page token is ignored): an owner's account's,
// or support staff's platform log. It records nothing. Filters are refused as AuditEvents
// refuses them, before anything is read.
func (s *Store) ExportAuditEvents(ctx context.Context, actor Actor, in AuditEventsInput) (*AuditExport, error) {
	accountID, err := actor.auditLog()
	if err != nil {
		return nil, err
	}
	in.PageToken = ""
	if err := in.Validate(); err != nil {
		return nil, err
	}
	return &AuditExport{s: s, accountID: accountID, in: in}, nil
}

// Each calls fn with every matching event in order, at most
// AuditExportLimit of them, reading a batch at a time so that no more
// than a batch is held. It stops at fn's first error.
func (x *AuditExport) Each(ctx context.Context, fn func(AuditEvent) error) error {
	var after *auditCursor
	for n := 0; n < AuditExportLimit; {
		var events []AuditEvent
		err := auditQuery(x.s.read(ctx), x.accountID, &x.in, after).
			Limit(min(auditExportBatch, AuditExportLimit-n)).Find(&events).Error
		if err != nil {
			return err
		}
		for _, ev := range events {
			if err := fn(ev); err != nil {
				return err
			}
		}
		n += len(events)
		if len(events) < auditExportBatch {
			return nil
		}
		last := events[len(events)-1]
		after = &auditCursor{at: last.EventTime, id: last.ID}
	}
	return nil
}

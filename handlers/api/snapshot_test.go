package api_test

import (
	"testing"

	"cloudplane/models"
)

// accountSnapshot counts what an account holds: its audit events (every
// change writes one) and its rows of each kind, so a test can tell that a
// refused request changed nothing.
type accountSnapshot map[string]int64

func snapshot(tb testing.TB, store *models.Store, accountID string) accountSnapshot {
	tb.Helper()
	out := accountSnapshot{}
	for name, model := range map[string]any{
		"audit_events": &models.AuditEvent{}, "filesystems": &models.Filesystem{}, "rulesets": &models.FirewallRuleset{},
		"instances": &models.Instance{}, "ssh_keys": &models.SSHKey{}, "tickets": &models.Ticket{},
		"ticket_attachments": &models.TicketAttachment{},
	} {
		var n int64
		if err := store.DB().Model(model).Where("account_id = ?", accountID).Count(&n).Error; err != nil {
			tb.Fatalf("count %s: %v", name, err)
		}
		out[name] = n
	}
	var comments int64
	err := store.DB().Model(&models.TicketComment{}).
		Where("ticket_id IN (?)", store.DB().Model(&models.Ticket{}).Select("id").Where("account_id = ?", accountID)).
		Count(&comments).Error
	if err != nil {
		tb.Fatalf("count comments: %v", err)
	}
	out["ticket_comments"] = comments
	return out
}

// snapshot is the env's owner's account snapshot.
func (e *env) snapshot() accountSnapshot { return snapshot(e.t, e.store, *e.owner.AccountID) }

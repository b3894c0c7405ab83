package models

// Audit actions of webhook settings, finer than "updated" so the log says
// what happened. Events recorded before they existed read "updated"; their
// details still tell (WebhookAuditAction).
const (
	WebhookCreated       = "created"
	WebhookUpdated       = "updated" // the URL, or several settings at once
	WebhookEnabled       = "enabled"
	WebhookDisabled      = "disabled"
	WebhookTokenRotated  = "token_rotated"
	WebhookSecretRotated = "secret_rotated"
)

// WebhookAuditAction is the action an "updated" webhook event stands for,
// read from its details; other actions are returned as they are.
func WebhookAuditAction(action string, details map[string]any) string {
	if action != WebhookUpdated {
		return action
	}
	// One setting changed (a disabling may say why): that is the action.
	n := len(details)
	if _, ok := details["reason"]; ok {
		n--
	}
	if n != 1 {
		return action
	}
	if enabled, ok := details["enabled"].(bool); ok {
		if enabled {
			return WebhookEnabled
		}
		return WebhookDisabled
	}
	if details["token_changed"] == true {
		return WebhookTokenRotated
	}
	if details["secret_changed"] == true || details["secret_rotated"] == true {
		return WebhookSecretRotated
	}
	return action
}

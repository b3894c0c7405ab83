package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// APIKeys lists the account's keys with the form to generate one.
// Support staff have no account: the domain answers forbidden.
func (h *Handlers) APIKeys(c *fiber.Ctx) error {
	return h.apiKeysPage(c, fiber.StatusOK, views.Form{}, nil)
}

// CreateAPIKey generates a key and shows its secret this once. The answer
// is the page itself, not a redirect: the secret must not outlive it.
func (h *Handlers) CreateAPIKey(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "name", "scope", "expires", "expires_on")}
	in := models.CreateAPIKeyInput{Name: form.Value("name"), ReadOnly: form.Value("scope") == models.ScopeReadOnly,
		Expires: form.Value("expires")}
	expiryField := "expires"
	if in.Expires == "date" {
		in.Expires, expiryField = form.Value("expires_on"), "expires_on"
		if in.Expires == "" {
			form.Errors = map[string]string{"expires_on": "Choose the date the key expires on."}
			return h.apiKeysPage(c, fiber.StatusUnprocessableEntity, form, nil)
		}
	}
	// A full-access key is as good as the password: it asks for a recent
	// proof of identity (the form is filled in again afterwards).
	if !in.ReadOnly {
		if done, err := h.requireRecentAuth(c, "/api-keys"); done || err != nil {
			return err
		}
	}
	k, secret, err := h.store.CreateAPIKey(c.UserContext(), actor(c), in)
	if err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"name": "name", "expires": expiryField})
		if err != nil {
			return err
		}
		return h.apiKeysPage(c, status, form, nil)
	}
	return h.apiKeysPage(c, fiber.StatusCreated, views.Form{}, &views.CreatedKey{Name: k.Name, Secret: secret})
}

func (h *Handlers) apiKeysPage(c *fiber.Ctx, status int, form views.Form, created *views.CreatedKey) error {
	a := actor(c)
	keys, err := h.store.MemberAPIKeys(c.UserContext(), a)
	if err != nil {
		return err
	}
	v := views.APIKeys{Form: form, Created: created, APIBase: c.BaseURL() + "/api/v1", CSRF: csrfToken(c),
		Everyone: a.Owns(), Viewer: a.Role == models.RoleViewer}
	now := h.store.Now()
	for _, mk := range keys {
		k := mk.APIKey
		v.Keys = append(v.Keys, views.APIKey{ID: k.ID, Owner: mk.Email, Name: k.Name, Prefix: k.Prefix, ReadOnly: k.Scope == models.ScopeReadOnly,
			Created: k.CreatedAt, LastUsed: k.LastUsedAt, Expires: k.ExpiresAt, Expired: k.Expired(now), Warning: keyWarning(&k, now)})
	}
	return h.page(c, status, "API keys", views.NavAPIKeys, views.APIKeysPage(v))
}

// Keys that want attention: one that expires within keyExpiryWarning, or
// has not been used (or, never used, was created) keyUnusedWarning ago.
const (
	keyExpiryWarning = 7 * 24 * time.Hour
	keyUnusedWarning = 90 * 24 * time.Hour
)

func keyWarning(k *models.APIKey, now time.Time) string {
	switch {
	case k.Expired(now):
		return "Expired: requests with it are refused"
	case k.ExpiresAt != nil && k.ExpiresAt.Sub(now) <= keyExpiryWarning:
		return "Expires within 7 days"
	}
	lastUsed := k.CreatedAt
	if k.LastUsedAt != nil {
		lastUsed = *k.LastUsedAt
	}
	if now.Sub(lastUsed) >= keyUnusedWarning {
		return "Unused for 90 days: revoke it if nothing needs it"
	}
	return ""
}

// ConfirmRevokeAPIKey asks before revoking: a page of its own, or the
// dialog's content when htmx loads it into the dialog.
func (h *Handlers) ConfirmRevokeAPIKey(c *fiber.Ctx) error {
	k, err := h.store.APIKey(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	return h.confirm(c, "Revoke API key", views.NavAPIKeys, views.Confirm{
		Title:      "Revoke “" + k.Name + "”?",
		Text:       "Scripts and tools using the key " + k.Prefix + "… stop working at once. This cannot be undone.",
		Action:     "/api-keys/" + k.ID + "/revoke",
		Submit:     "Revoke key",
		CancelHref: "/api-keys",
		// A viewer sees (and so revokes) only their own keys.
		ViewerAllowed: true,
	}, false)
}

// RevokeAPIKey revokes a key of the account and returns to the list.
func (h *Handlers) RevokeAPIKey(c *fiber.Ctx) error {
	k, err := h.store.RevokeAPIKey(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	if err := h.flash(c, "API key “"+k.Name+"” revoked. Requests that use it are now refused."); err != nil {
		return err
	}
	return redirect(c, "/api-keys")
}

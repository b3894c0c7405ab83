package web

import (
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
	form := views.Form{Values: formValues(c, "name")}
	k, secret, err := h.store.CreateAPIKey(c.UserContext(), actor(c), models.CreateAPIKeyInput{Name: form.Value("name")})
	if err != nil {
		status, err := formError(err, &form)
		if err != nil {
			return err
		}
		return h.apiKeysPage(c, status, form, nil)
	}
	return h.apiKeysPage(c, fiber.StatusCreated, views.Form{}, &views.CreatedKey{Name: k.Name, Secret: secret})
}

func (h *Handlers) apiKeysPage(c *fiber.Ctx, status int, form views.Form, created *views.CreatedKey) error {
	keys, err := h.store.APIKeys(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	v := views.APIKeys{Form: form, Created: created, APIBase: c.BaseURL() + "/api/v1", CSRF: csrfToken(c)}
	for _, k := range keys {
		v.Keys = append(v.Keys, views.APIKey{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Created: k.CreatedAt, LastUsed: k.LastUsedAt})
	}
	return h.page(c, status, "API keys", views.NavAPIKeys, views.APIKeysPage(v))
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

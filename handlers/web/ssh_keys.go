package web

import (
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// SSHKeys lists the account's SSH keys with the form to add or generate
// one and, once after generating, the new private key.
func (h *Handlers) SSHKeys(c *fiber.Ctx) error {
	var generated views.GeneratedKey
	ok, err := h.takeOnce(c, onceGeneratedKey, &generated)
	if err != nil {
		return err
	}
	if !ok {
		return h.sshKeysPage(c, fiber.StatusOK, views.Form{}, nil)
	}
	return h.sshKeysPage(c, fiber.StatusOK, views.Form{}, &generated)
}

// AddSSHKey adds a public key to the account and returns to the list.
func (h *Handlers) AddSSHKey(c *fiber.Ctx) error { return h.createSSHKey(c, false) }

// GenerateSSHKey generates a pair and redirects to the list, which shows
// its private key once: the domain does not store it; the session keeps
// it sealed with its cookie until that page takes it, so a reload neither
// generates another pair nor shows the key again.
func (h *Handlers) GenerateSSHKey(c *fiber.Ctx) error { return h.createSSHKey(c, true) }

func (h *Handlers) createSSHKey(c *fiber.Ctx, generate bool) error {
	form := views.Form{Values: formValues(c, "name", "public_key")}
	in := models.CreateSSHKeyInput{Name: form.Value("name")}
	if !generate {
		public := form.Value("public_key")
		in.PublicKey = &public
	}
	k, private, err := h.store.CreateSSHKey(c.UserContext(), actor(c), in)
	if err != nil {
		status, err := formError(err, &form)
		if err != nil {
			return err
		}
		showAt(c, "/ssh-keys")
		return h.sshKeysPage(c, status, form, nil)
	}
	if generate {
		if err := h.setOnce(c, onceGeneratedKey,
			views.GeneratedKey{Name: k.Name, PrivateKey: private, FileName: keyFileName(k.Name)}); err != nil {
			return err
		}
		return redirect(c, "/ssh-keys")
	}
	if err := h.flash(c, "SSH key “"+k.Name+"” added. Choose it when you launch an instance."); err != nil {
		return err
	}
	return redirect(c, "/ssh-keys")
}

func (h *Handlers) sshKeysPage(c *fiber.Ctx, status int, form views.Form, generated *views.GeneratedKey) error {
	keys, err := h.store.SSHKeys(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	v := views.SSHKeys{Form: form, Generated: generated, CSRF: csrfToken(c)}
	for _, k := range keys {
		kind, _, _ := strings.Cut(k.PublicKey, " ")
		v.Keys = append(v.Keys, views.SSHKey{ID: k.ID, Name: k.Name, Type: kind, Fingerprint: k.Fingerprint(), Created: k.CreatedAt})
	}
	return h.page(c, status, "SSH keys", views.NavSSHKeys, views.SSHKeysPage(v))
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// keyFileName suggests where to save a generated private key, after the
// key's name, as ssh-keygen names its files.
func keyFileName(name string) string {
	safe := strings.Trim(unsafeFileChars.ReplaceAllString(name, "-"), "-.")
	if len(safe) > 40 {
		safe = safe[:40]
	}
	if safe == "" {
		return "id_ed25519"
	}
	return "id_ed25519_" + safe
}

// ConfirmDeleteSSHKey asks before deleting a key.
func (h *Handlers) ConfirmDeleteSSHKey(c *fiber.Ctx) error {
	k, err := h.store.SSHKey(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	return h.confirm(c, "Delete SSH key", views.NavSSHKeys, views.Confirm{
		Title:      "Delete SSH key “" + k.Name + "”?",
		Text:       "New instances cannot be launched with it. Instances already running keep it, so logging in to them still works. This cannot be undone.",
		Action:     "/ssh-keys/" + k.ID + "/delete",
		Submit:     "Delete key",
		CancelHref: "/ssh-keys",
	}, false)
}

// DeleteSSHKey deletes a key of the account and returns to the list.
func (h *Handlers) DeleteSSHKey(c *fiber.Ctx) error {
	k, err := h.store.DeleteSSHKey(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	if err := h.flash(c, "SSH key “"+k.Name+"” deleted."); err != nil {
		return err
	}
	return redirect(c, "/ssh-keys")
}

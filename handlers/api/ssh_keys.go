package api

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

type sshKeyJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	PublicKey string `json:"public_key"`
}

// generatedSSHKeyJSON carries the private key of a generated pair, shown
// in this one answer only.
type generatedSSHKeyJSON struct {
	sshKeyJSON
	PrivateKey string `json:"private_key"`
}

func newSSHKeyJSON(k *models.SSHKey) sshKeyJSON {
	return sshKeyJSON{ID: k.ID, Name: k.Name, PublicKey: k.PublicKey}
}

// SSHKeys lists the account's SSH keys.
func (h *Handlers) SSHKeys(c *fiber.Ctx) error {
	keys, err := h.store.SSHKeys(c.UserContext(), Actor(c))
	if err != nil {
		return err
	}
	out := make([]sshKeyJSON, len(keys))
	for i := range keys {
		out[i] = newSSHKeyJSON(&keys[i])
	}
	return ok(c, out)
}

// CreateSSHKey adds a public key, or generates a pair and answers the
// private key once.
func (h *Handlers) CreateSSHKey(c *fiber.Ctx) error {
	var in models.CreateSSHKeyInput
	if err := decode(c, &in); err != nil {
		return err
	}
	k, private, err := h.store.CreateSSHKey(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	if private != "" {
		return replayWithout(c, generatedSSHKeyJSON{sshKeyJSON: newSSHKeyJSON(k), PrivateKey: private}, newSSHKeyJSON(k))
	}
	return ok(c, newSSHKeyJSON(k))
}

// DeleteSSHKey removes a key and answers an empty object.
func (h *Handlers) DeleteSSHKey(c *fiber.Ctx) error {
	if _, err := h.store.DeleteSSHKey(c.UserContext(), Actor(c), c.Params("id")); err != nil {
		return err
	}
	return ok(c, struct{}{})
}

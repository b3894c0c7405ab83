package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Adding an SSH key inside the launch form. Without script the form's
// "Add public key" and "Generate a key pair" buttons submit the whole
// launch form (action add-key or generate-key) and LaunchInstance answers
// with the form again, every choice kept and the new key chosen; with
// script the same buttons post the new key's fields alone to
// LaunchSSHKey, which answers with the form's key part. Both add the key
// through the domain's CreateSSHKey, the operation of the SSH keys page.

// Launch form actions that add a key instead of launching.
const (
	launchActionAddKey      = "add-key"
	launchActionGenerateKey = "generate-key"
)

// newKeyFields are the fields of the key form inside the launch form,
// named apart from the launch's own name.
var newKeyFields = map[string]string{"name": "new_key_name", "public_key": "new_public_key"}

// launchNewKey is what adding a key from the launch form came to: the
// key's form (its values and errors when refused), the key added, and a
// generated pair's private key, shown in this one answer.
type launchNewKey struct {
	form      views.Form
	added     string
	generated *views.GeneratedKey
}

// addLaunchKey adds (or, with generate, generates) the key the launch
// form's key fields describe. A refusal the form can show comes back in
// the result with its status; any other error is returned.
func (h *Handlers) addLaunchKey(c *fiber.Ctx, generate bool) (launchNewKey, int, error) {
	nk := launchNewKey{form: views.Form{Values: formValues(c, "new_key_name", "new_public_key")}}
	in := models.CreateSSHKeyInput{Name: nk.form.Value("new_key_name")}
	if !generate {
		public := nk.form.Value("new_public_key")
		in.PublicKey = &public
	}
	k, private, err := h.store.CreateSSHKey(c.UserContext(), actor(c), in)
	if err != nil {
		status, err := formErrorAt(err, &nk.form, newKeyFields)
		return nk, status, err
	}
	nk.form, nk.added = views.Form{}, k.Name
	if generate {
		nk.generated = &views.GeneratedKey{Name: k.Name, PrivateKey: private, FileName: keyFileName(k.Name)}
	}
	return nk, fiber.StatusOK, nil
}

// LaunchSSHKey adds or generates a key from the launch form with script
// (htmx) and answers with the form's key part: the select with the new
// key chosen and, for a generated pair, its private key, shown once; or
// the key's fields with the domain's refusal beside them.
func (h *Handlers) LaunchSSHKey(c *fiber.Ctx) error {
	nk, status, err := h.addLaunchKey(c, c.FormValue("action") == launchActionGenerateKey)
	if err != nil {
		return err
	}
	keys, err := h.store.SSHKeys(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	v := views.Launch{SSHKey: launchKeyField(keys, views.Form{}), NewKey: nk.form, AddedKey: nk.added, Generated: nk.generated}
	v.SSHKey.Value = nk.added
	if nk.added == "" {
		v.SSHKey.Value = c.FormValue("ssh_key_names")
	}
	return renderAlone(c.Status(status), views.LaunchSSHKey(v))
}

// launchKeyField is the launch form's key select, offering the account's
// keys, with the key the form chose; with one key and nothing chosen
// yet, that one.
func launchKeyField(keys []models.SSHKey, form views.Form) views.Field {
	f := views.Field{Name: "ssh_key_names", Label: "SSH key", Placeholder: "Choose a key",
		Value: form.Value("ssh_key_names"), Error: form.Error("ssh_key_names"),
		Hint: "You log in as ubuntu with its private half."}
	for _, k := range keys {
		f.Options = append(f.Options, views.Option{Value: k.Name, Label: k.Name})
	}
	if len(keys) == 1 && form.Values == nil {
		f.Value = keys[0].Name // nothing to choose between
	}
	return f
}

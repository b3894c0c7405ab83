package web

import (
	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// Filesystems lists the account's filesystems with the form to create one.
// Support staff have no account: the domain answers forbidden.
func (h *Handlers) Filesystems(c *fiber.Ctx) error {
	return h.filesystemsPage(c, fiber.StatusOK, views.Form{}, nil)
}

// CreateFilesystem creates a filesystem from the form and returns to the
// list, or shows the form again with the domain's reasons beside the
// fields (a bad or taken name) or above them (the quota).
func (h *Handlers) CreateFilesystem(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "name", "region")}
	in := models.CreateFilesystemInput{Name: form.Value("name"), Region: form.Value("region")}
	f, err := h.store.CreateFilesystem(c.UserContext(), actor(c), in)
	if err != nil {
		status, err := formError(err, &form)
		if err != nil {
			return err
		}
		return h.filesystemsPage(c, status, form, nil)
	}
	if err := h.flash(c, "Filesystem “"+f.Name+"” created in "+f.RegionName+". Mount it by choosing it when you launch an instance there."); err != nil {
		return err
	}
	return redirect(c, "/filesystems")
}

func (h *Handlers) filesystemsPage(c *fiber.Ctx, status int, form views.Form, notice *views.Flash) error {
	list, err := h.store.Filesystems(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	v := views.Filesystems{Form: form, Regions: regionOptions(""), CSRF: csrfToken(c)}
	for _, f := range list {
		r := f.Region()
		v.Filesystems = append(v.Filesystems, views.Filesystem{ID: f.ID, Name: f.Name, Region: r.Name,
			RegionDescription: r.Description, MountPoint: f.MountPoint(), InUse: f.InUse, CreatedBy: f.CreatorEmail,
			CreatorDeactivated: f.CreatorStatus == models.UserDeactivated, Created: f.CreatedAt})
	}
	return h.pageWithNotice(c, status, "Filesystems", views.NavFilesystems, notice, views.FilesystemsPage(v))
}

// ConfirmDeleteFilesystem asks before deleting a filesystem, or says why
// it cannot be deleted while it is mounted.
func (h *Handlers) ConfirmDeleteFilesystem(c *fiber.Ctx) error {
	f, err := h.store.Filesystem(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	v := views.Confirm{
		Title:      "Delete “" + f.Name + "”?",
		Text:       "Everything stored on it is deleted with it. This cannot be undone.",
		Action:     "/filesystems/" + f.ID + "/delete",
		Submit:     "Delete filesystem",
		CancelHref: "/filesystems",
	}
	if f.InUse {
		v.Title = "“" + f.Name + "” is in use"
		v.Text = "It is mounted on a running instance, so it cannot be deleted. Terminate the instances that mount it, then delete it."
		v.Submit = "Back to filesystems"
	}
	return h.confirm(c, "Delete filesystem", views.NavFilesystems, v, f.InUse)
}

// DeleteFilesystem deletes a filesystem of the account and returns to the
// list; a refusal (it is mounted) is shown above the list.
func (h *Handlers) DeleteFilesystem(c *fiber.Ctx) error {
	f, err := h.store.DeleteFilesystem(c.UserContext(), actor(c), c.Params("id"))
	if notice := refusal(err); notice != nil {
		return h.filesystemsPage(c, fiber.StatusUnprocessableEntity, views.Form{}, notice)
	} else if err != nil {
		return err
	}
	if err := h.flash(c, "Filesystem “"+f.Name+"” deleted."); err != nil {
		return err
	}
	return redirect(c, "/filesystems")
}

// regionOptions are the regions to choose from, the one where firewall
// rules do not apply marked with noFirewall when given.
func regionOptions(noFirewall string) []views.Option {
	out := make([]views.Option, len(models.Regions))
	for i, r := range models.Regions {
		out[i] = views.Option{Value: r.Name, Label: r.Name + " · " + r.Description}
		if r.Name == models.RegionNoFirewall && noFirewall != "" {
			out[i].Label += " " + noFirewall
		}
	}
	return out
}

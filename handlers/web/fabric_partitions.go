package web

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
	"cloudplane/views"
)

// FabricPartitions lists the account's fabric partitions with the form to
// create one. Support staff have no account: the domain answers forbidden.
func (h *Handlers) FabricPartitions(c *fiber.Ctx) error {
	return h.fabricPartitionsPage(c, fiber.StatusOK, views.Form{})
}

// CreateFabricPartition creates a partition from the form, in the default
// workspace, and returns to the list, or shows the form again with the
// domain's reasons beside the fields (a bad or taken name) or above them
// (the quota).
func (h *Handlers) CreateFabricPartition(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "name", "region")}
	in := models.CreateFabricPartitionInput{Name: form.Value("name"), Region: form.Value("region")}
	p, err := h.store.CreateFabricPartition(c.UserContext(), actor(c), in)
	if err != nil {
		status, err := formError(err, &form)
		if err != nil {
			return err
		}
		return h.fabricPartitionsPage(c, status, form)
	}
	if err := h.flash(c, "Fabric partition “"+p.Name+"” created in "+p.RegionName+"."); err != nil {
		return err
	}
	return redirect(c, "/fabric")
}

func (h *Handlers) fabricPartitionsPage(c *fiber.Ctx, status int, form views.Form) error {
	list, err := h.store.FabricPartitions(c.UserContext(), actor(c))
	if err != nil {
		return err
	}
	a, err := h.store.Account(c.UserContext(), actor(c).AccountID)
	if err != nil {
		return err
	}
	v := views.FabricPartitions{WorkspaceID: models.DefaultWorkspaceID(a.ID), Regions: regionOptions(""),
		Quota: strconv.Itoa(len(list)) + " of " + strconv.Itoa(a.FabricPartitionQuota) + " partitions used",
		Form:  form, CSRF: csrfToken(c)}
	for _, p := range list {
		r := p.Region()
		v.Partitions = append(v.Partitions, views.FabricPartition{ID: p.ID, Name: p.Name, Region: r.Name,
			RegionDescription: r.Description, Created: p.CreatedAt})
	}
	return h.page(c, status, "Fabric partitions", views.NavFabric, views.FabricPartitionsPage(v))
}

// RenameFabricPartitionForm shows the form that renames a partition: the
// dialog's content for htmx, else a page of its own.
func (h *Handlers) RenameFabricPartitionForm(c *fiber.Ctx) error {
	p, err := h.store.FabricPartition(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	v := views.RenameFabricPartition{ID: p.ID, Current: p.Name, CSRF: csrfToken(c),
		Form: views.Form{Values: map[string]string{"new_name": p.Name}}, InDialog: c.Get("HX-Target") == "dialog"}
	if v.InDialog {
		return renderAlone(c, views.RenameFabricPartitionPage(v))
	}
	return h.page(c, fiber.StatusOK, "Rename fabric partition", views.NavFabric, views.RenameFabricPartitionPage(v))
}

// RenameFabricPartition renames a partition and returns to the list, or
// shows the form again (as a page) with the reason beside the name. The
// field is new_name, so that its id differs from the create form's name
// field on the page the dialog opens over.
func (h *Handlers) RenameFabricPartition(c *fiber.Ctx) error {
	form := views.Form{Values: formValues(c, "new_name")}
	p, err := h.store.RenameFabricPartition(c.UserContext(), actor(c), c.Params("id"),
		models.RenameFabricPartitionInput{Name: form.Value("new_name")})
	if err != nil {
		status, err := formErrorAt(err, &form, map[string]string{"name": "new_name"})
		if err != nil {
			return err
		}
		current, err := h.store.FabricPartition(c.UserContext(), actor(c), c.Params("id"))
		if err != nil {
			return err
		}
		v := views.RenameFabricPartition{ID: current.ID, Current: current.Name, Form: form, CSRF: csrfToken(c)}
		return h.page(c, status, "Rename fabric partition", views.NavFabric, views.RenameFabricPartitionPage(v))
	}
	if err := h.flash(c, "Fabric partition renamed “"+p.Name+"”."); err != nil {
		return err
	}
	return redirect(c, "/fabric")
}

// ConfirmDeleteFabricPartition asks before deleting a partition.
func (h *Handlers) ConfirmDeleteFabricPartition(c *fiber.Ctx) error {
	p, err := h.store.FabricPartition(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	return h.confirm(c, "Delete fabric partition", views.NavFabric, views.Confirm{
		Title:      "Delete “" + p.Name + "”?",
		Text:       "The partition in " + p.RegionName + " is deleted. This cannot be undone.",
		Action:     "/fabric/" + p.ID + "/delete",
		Submit:     "Delete partition",
		CancelHref: "/fabric",
	}, false)
}

// DeleteFabricPartition deletes a partition of the account and returns to
// the list.
func (h *Handlers) DeleteFabricPartition(c *fiber.Ctx) error {
	p, err := h.store.DeleteFabricPartition(c.UserContext(), actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	if err := h.flash(c, "Fabric partition “"+p.Name+"” deleted."); err != nil {
		return err
	}
	return redirect(c, "/fabric")
}

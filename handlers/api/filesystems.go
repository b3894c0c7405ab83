package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

type filesystemJSON struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	MountPoint string          `json:"mount_point"`
	Created    string          `json:"created"`
	CreatedBy  filesystemOwner `json:"created_by"`
	IsInUse    bool            `json:"is_in_use"`
	Region     models.Region   `json:"region"`
	BytesUsed  int64           `json:"bytes_used"`
}

// filesystemOwner is the reference's User object.
type filesystemOwner struct {
	ID     string `json:"id"`
	Email  string `json:"email"`
	Status string `json:"status"`
}

type filesystemDeleted struct {
	DeletedIDs []string `json:"deleted_ids"`
}

func newFilesystemJSON(f *models.FilesystemView) filesystemJSON {
	return filesystemJSON{
		ID: f.ID, Name: f.Name, MountPoint: f.MountPoint(),
		Created:   f.CreatedAt.UTC().Format(time.RFC3339),
		CreatedBy: filesystemOwner{ID: f.CreatedByUserID, Email: f.CreatorEmail, Status: f.CreatorStatus},
		IsInUse:   f.InUse, Region: f.Region(), BytesUsed: f.BytesUsed,
	}
}

// Filesystems lists the account's filesystems (GET /filesystems, and the
// deprecated GET /file-systems).
func (h *Handlers) Filesystems(c *fiber.Ctx) error {
	list, err := h.store.Filesystems(c.UserContext(), Actor(c))
	if err != nil {
		return err
	}
	out := make([]filesystemJSON, len(list))
	for i := range list {
		out[i] = newFilesystemJSON(&list[i])
	}
	return ok(c, out)
}

// CreateFilesystem creates a filesystem from {name, region}.
func (h *Handlers) CreateFilesystem(c *fiber.Ctx) error {
	var in models.CreateFilesystemInput
	if err := decode(c, &in); err != nil {
		return err
	}
	f, err := h.store.CreateFilesystem(c.UserContext(), Actor(c), in)
	if err != nil {
		return err
	}
	return ok(c, newFilesystemJSON(f))
}

// DeleteFilesystem deletes a filesystem and answers {"deleted_ids": [id]}.
func (h *Handlers) DeleteFilesystem(c *fiber.Ctx) error {
	f, err := h.store.DeleteFilesystem(c.UserContext(), Actor(c), c.Params("id"))
	if err != nil {
		return err
	}
	return ok(c, filesystemDeleted{DeletedIDs: []string{f.ID}})
}

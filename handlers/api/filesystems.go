package api

import (
	"strconv"
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
	body, err := h.store.FilesystemsEncoded(c.UserContext(), Actor(c), filesystemListJSON)
	if err != nil {
		return err
	}
	return sendJSON(c, body)
}

// filesystemListJSON is the list's body, which the store keeps with the
// list it encodes until the list changes.
var filesystemListJSON = models.NewListEncoding(func(list []models.FilesystemView) []byte {
	return appendFilesystemList(make([]byte, 0, 512+300*len(list)), list)
})

// appendFilesystemList appends the list's body, {"data": [...]}, as ok
// would write it.
func appendFilesystemList(dst []byte, list []models.FilesystemView) []byte {
	dst = append(dst, `{"data":[`...)
	for i := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendFilesystemJSON(dst, &list[i])
	}
	return append(dst, ']', '}')
}

// appendFilesystemJSON appends f as encoding/json marshals
// newFilesystemJSON(f), without reflection or the intermediate struct.
func appendFilesystemJSON(dst []byte, f *models.FilesystemView) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, f.ID)
	dst = append(dst, `,"name":`...)
	dst = appendJSONString(dst, f.Name)
	dst = append(dst, `,"mount_point":`...)
	dst = appendJSONString(dst, f.MountPoint())
	// RFC 3339 in UTC is digits, '-', ':', 'T' and 'Z': nothing to escape.
	dst = append(dst, `,"created":"`...)
	dst = f.CreatedAt.UTC().AppendFormat(dst, time.RFC3339)
	dst = append(dst, `","created_by":{"id":`...)
	dst = appendJSONString(dst, f.CreatedByUserID)
	dst = append(dst, `,"email":`...)
	dst = appendJSONString(dst, f.CreatorEmail)
	dst = append(dst, `,"status":`...)
	dst = appendJSONString(dst, f.CreatorStatus)
	dst = append(dst, `},"is_in_use":`...)
	dst = strconv.AppendBool(dst, f.InUse)
	region := f.Region()
	dst = append(dst, `,"region":{"name":`...)
	dst = appendJSONString(dst, region.Name)
	dst = append(dst, `,"description":`...)
	dst = appendJSONString(dst, region.Description)
	dst = append(dst, `},"bytes_used":`...)
	dst = strconv.AppendInt(dst, f.BytesUsed, 10)
	return append(dst, '}')
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

package models

import "gorm.io/gorm"

// The filesystem list is the API's hottest read. GORM's scan (by
// reflection, per field per row) cost 2-7% of the server's CPU under load
// whenever the cached list had to be read again (issue 24), so its rows
// are scanned here into the fields directly, from columns named once.

// filesystemViewColumns are a filesystem's own columns, in the order
// findFilesystemViews reads them; the view's joined columns follow.
const filesystemViewColumns = "filesystems.id, filesystems.account_id, filesystems.name, filesystems.region_name, " +
	"filesystems.created_by_user_id, filesystems.bytes_used, filesystems.created_at, filesystems.updated_at"

// findFilesystemViews runs q, which selects filesystemViewColumns then the
// creator's email and status and the in-use flag (filesystemViews), and
// scans every row.
func findFilesystemViews(q *gorm.DB) ([]FilesystemView, error) {
	rows, err := q.Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FilesystemView
	for rows.Next() {
		var f FilesystemView
		if err := rows.Scan(&f.ID, &f.AccountID, &f.Name, &f.RegionName, &f.CreatedByUserID, &f.BytesUsed,
			&f.CreatedAt, &f.UpdatedAt, &f.CreatorEmail, &f.CreatorStatus, &f.InUse); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

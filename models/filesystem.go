package models

import (
	"context"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// Filesystem is a network filesystem in one region, mounted on instances
// at /lambda/nfs/<name>. Names are unique within an account. Keyed by
// account, then id (migration 0035), so an account's are stored together.
type Filesystem struct {
	AccountID       string    `gorm:"primaryKey;size:32;not null;uniqueIndex:idx_filesystems_account_name,priority:1;index:idx_filesystems_search,priority:1"`
	ID              string    `gorm:"primaryKey;size:32;not null;uniqueIndex:idx_filesystems_id"`
	Name            string    `gorm:"size:60;not null;uniqueIndex:idx_filesystems_account_name,priority:2;index:idx_filesystems_search,expression:lower(name),priority:2"`
	RegionName      string    `gorm:"size:32;not null"`
	CreatedByUserID string    `gorm:"size:32;not null"`
	BytesUsed       int64     `gorm:"not null"`
	CreatedAt       time.Time `gorm:"not null"`
	UpdatedAt       time.Time `gorm:"not null"`
}

// MountPoint is where instances mount the filesystem by default.
func (f *Filesystem) MountPoint() string { return "/lambda/nfs/" + f.Name }

// Region is the catalogue entry of the filesystem's region.
func (f *Filesystem) Region() Region { r, _ := LookupRegion(f.RegionName); return r }

// FilesystemView is a filesystem with what readers see beside it: its
// creator, and whether an instance that holds its mounts (booting, active
// or unhealthy) mounts it, in which case it cannot be deleted.
type FilesystemView struct {
	Filesystem
	CreatorEmail  string
	CreatorStatus string
	InUse         bool
}

// MaxFilesystemName is the longest filesystem name.
const MaxFilesystemName = 60

var filesystemNamePattern = regexp.MustCompile(`^[a-zA-Z]+[0-9a-zA-Z-]*$`)

// CreateFilesystemInput is a new filesystem.
type CreateFilesystemInput struct {
	Name   string `json:"name"`
	Region string `json:"region"`
}

// Validate checks the name's shape and that the region exists.
func (in CreateFilesystemInput) Validate() error {
	var f FieldErrors
	switch {
	case in.Name == "":
		f.Add("name", "is required")
	case utf8.RuneCountInString(in.Name) > MaxFilesystemName:
		f.Add("name", fmt.Sprintf("must be at most %d characters", MaxFilesystemName))
	case !filesystemNamePattern.MatchString(in.Name):
		f.Add("name", "must start with a letter and contain only letters, digits and hyphens")
	}
	validateRegion(&f, "region", in.Region)
	return f.Err()
}

// Filesystems lists the actor's account's filesystems by name. It is the
// API's hottest read: it costs one indexed read of the account's version
// while the list is cached and unchanged (accountCache), and one more query
// otherwise, whatever the length of the list: creators and in-use flags are
// joined in, not looked up per row.
func (s *Store) Filesystems(ctx context.Context, actor Actor) ([]FilesystemView, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	return s.filesystems.list(ctx, s, accountID, func() ([]FilesystemView, error) {
		return s.loadFilesystems(ctx, accountID)
	})
}

// FilesystemsEncoded is Filesystems encoded by enc, for the API's hottest
// read: the list is encoded once per change of the account's objects, and
// the bytes are shared with every caller, who must not modify them.
func (s *Store) FilesystemsEncoded(ctx context.Context, actor Actor, enc *ListEncoding[FilesystemView]) ([]byte, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	return s.filesystems.encoded(ctx, s, accountID, func() ([]FilesystemView, error) {
		return s.loadFilesystems(ctx, accountID)
	}, enc)
}

// loadFilesystems reads the account's filesystems from the database.
func (s *Store) loadFilesystems(ctx context.Context, accountID string) ([]FilesystemView, error) {
	out, err := findFilesystemViews(s.filesystemViews(ctx, accountID).Order("filesystems.name"))
	if out == nil {
		out = []FilesystemView{}
	}
	return out, err
}

// Filesystem returns a filesystem of the actor's account as the list
// shows it, or CodeNotFound.
func (s *Store) Filesystem(ctx context.Context, actor Actor, id string) (*FilesystemView, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	if !IsID(id) {
		return nil, filesystemNotFound(id)
	}
	out, err := findFilesystemViews(s.filesystemViews(ctx, accountID).Where("filesystems.id = ?", id))
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, filesystemNotFound(id)
	}
	return &out[0], nil
}

// filesystemViews selects the account's filesystems with their creators
// and in-use flags joined in.
func (s *Store) filesystemViews(ctx context.Context, accountID string) *gorm.DB {
	return s.read(ctx).Table("filesystems").
		Select(filesystemViewColumns+", COALESCE(users.email, '') AS creator_email, COALESCE(users.status, ?) AS creator_status, "+
			heldSQL("instance_filesystems", "filesystem_id", "filesystems.id")+" AS in_use",
			UserDeactivated, instanceInUseStatuses).
		Joins("LEFT JOIN users ON users.id = filesystems.created_by_user_id").
		Where("filesystems.account_id = ?", accountID)
}

// CreateFilesystem creates a filesystem in the actor's account and records
// a "filesystem created" audit event. It fails with CodeInvalidAddress
// while the account's billing address is invalid, CodeQuotaExceeded when
// the account has FilesystemQuota filesystems, and CodeDuplicate (naming
// "name") when the account already has one by that name.
func (s *Store) CreateFilesystem(ctx context.Context, actor Actor, in CreateFilesystemInput) (*FilesystemView, error) {
	fs, err := createInAccount(ctx, s, actor, in.Validate, func(accountID, id string) (*Filesystem, accountCreate, error) {
		now := s.Now()
		fs := &Filesystem{ID: id, AccountID: accountID, Name: in.Name, RegionName: in.Region,
			CreatedByUserID: actor.UserID, CreatedAt: now, UpdatedAt: now}
		return fs, accountCreate{resource: "filesystem", quota: filesystemQuota,
			check:     func(_ *gorm.DB, a *Account) error { return a.requireBillingAddress() },
			duplicate: duplicateFilesystem(fs.Name),
			details:   map[string]any{"name": fs.Name, "region": fs.RegionName},
			fold:      fs.insert()}, nil
	})
	if err != nil {
		return nil, err
	}
	return &FilesystemView{Filesystem: *fs, CreatorEmail: actor.Email, CreatorStatus: UserActive}, nil
}

// insert is fs as createFolded writes it.
func (f *Filesystem) insert() *rowInsert {
	return &rowInsert{table: "filesystems",
		columns:      "id, account_id, name, region_name, created_by_user_id, bytes_used, created_at, updated_at",
		placeholders: "?, ?, ?, ?, ?, ?::bigint, ?::timestamptz, ?::timestamptz",
		args:         []any{f.ID, f.AccountID, f.Name, f.RegionName, f.CreatedByUserID, f.BytesUsed, f.CreatedAt, f.UpdatedAt}}
}

func duplicateFilesystem(name string) error {
	return &Error{Code: CodeDuplicate, Fields: map[string]string{"name": "is already used"},
		Message:    fmt.Sprintf("name: a filesystem named %q already exists in this account", name),
		Suggestion: "Choose another name, or use the existing filesystem"}
}

// DeleteFilesystem deletes a filesystem of the actor's account and records
// a "filesystem deleted" audit event. It fails with CodeNotFound when the
// account has no filesystem with that id, and CodeFilesystemInUse while an
// instance that holds its mounts (booting, active or unhealthy) mounts it.
func (s *Store) DeleteFilesystem(ctx context.Context, actor Actor, id string) (*Filesystem, error) {
	var fs Filesystem
	if err := s.deleteHeld(ctx, actor, id, &fs, filesystemKind, Precondition{}); err != nil {
		return nil, err
	}
	return &fs, nil
}

var filesystemKind = heldKind{
	resource: "filesystem", table: "instance_filesystems", column: "filesystem_id",
	notFound: filesystemNotFound,
	inUse: func(name string) error {
		return &Error{Code: CodeFilesystemInUse,
			Message:    fmt.Sprintf("Filesystem %q is mounted on a running instance", name),
			Suggestion: "Terminate the instances that mount it, then delete it"}
	},
}

func (f *Filesystem) describe() (id, name, region string) { return f.ID, f.Name, f.RegionName }

func filesystemNotFound(id string) error {
	e := NotFound("filesystem", id)
	e.Suggestion = "List your filesystems with GET /api/v1/filesystems"
	return e
}

package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"gorm.io/gorm"
)

// FabricPartition is a partition of the compute fabric in one region of
// one workspace. It is simulated: nothing but the row exists. Names are
// unique within an account and region.
type FabricPartition struct {
	ID          string    `gorm:"primaryKey;size:32"`
	AccountID   string    `gorm:"size:32;not null;uniqueIndex:idx_fabric_partitions_account_region_name,priority:1"`
	WorkspaceID string    `gorm:"size:32;not null"`
	Name        string    `gorm:"size:32;not null;uniqueIndex:idx_fabric_partitions_account_region_name,priority:3"`
	RegionName  string    `gorm:"size:32;not null;uniqueIndex:idx_fabric_partitions_account_region_name,priority:2"`
	CreatedAt   time.Time `gorm:"not null"`
	UpdatedAt   time.Time `gorm:"not null"`
}

// Region is the catalogue entry of the partition's region.
func (p *FabricPartition) Region() Region { r, _ := LookupRegion(p.RegionName); return r }

// DefaultWorkspaceID is the id of the account's default workspace, where
// partitions go when the caller names none. An account has exactly this
// one workspace for now, so its id is the account's: stable, stored
// nowhere else, and already public in the audit log's owner LRNs. Should
// accounts get more workspaces, the default one keeps this id.
func DefaultWorkspaceID(accountID string) string { return accountID }

var fabricPartitionNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// validateFabricPartitionName checks the reference's pattern, which also
// bounds the length (1 to 32).
func validateFabricPartitionName(f *FieldErrors, name string) {
	switch {
	case name == "":
		f.Add("name", "is required")
	case len(name) > 32:
		f.Add("name", "must be at most 32 characters")
	case !fabricPartitionNamePattern.MatchString(name):
		f.Add("name", "must start with a lower-case letter or digit and contain only lower-case letters, digits and hyphens")
	}
}

// CreateFabricPartitionInput is a new partition. WorkspaceID is optional:
// empty means the account's default workspace.
type CreateFabricPartitionInput struct {
	Name        string `json:"name"`
	Region      string `json:"region"`
	WorkspaceID string `json:"workspace_id"`
}

// Validate checks the name's shape and that the region exists. Whether
// the workspace exists depends on the account, so the store checks it.
func (in CreateFabricPartitionInput) Validate() error {
	var f FieldErrors
	validateFabricPartitionName(&f, in.Name)
	validateRegion(&f, "region", in.Region)
	return f.Err()
}

// RenameFabricPartitionInput is a partition's new name.
type RenameFabricPartitionInput struct {
	Name string `json:"name"`
}

// Validate checks the name's shape.
func (in RenameFabricPartitionInput) Validate() error {
	var f FieldErrors
	validateFabricPartitionName(&f, in.Name)
	return f.Err()
}

// FabricPartitions lists the actor's account's partitions by region, then
// name. It records nothing.
func (s *Store) FabricPartitions(ctx context.Context, actor Actor) ([]FabricPartition, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	out := []FabricPartition{}
	err = s.read(ctx).Where("account_id = ?", accountID).Order("region_name, name").Find(&out).Error
	return out, err
}

// FabricPartition returns a partition of the actor's account, or
// CodeFabricPartitionNotFound (also for another account's partition).
func (s *Store) FabricPartition(ctx context.Context, actor Actor, id string) (*FabricPartition, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	var p FabricPartition
	if err := takeOwned(s.read(ctx), &p, accountID, id); errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, fabricPartitionNotFound(id)
	} else if err != nil {
		return nil, err
	}
	return &p, nil
}

// CreateFabricPartition creates a partition in the actor's account and
// records a "fabric_partition created" audit event. It fails with
// CodeInvalidParameters naming workspace_id when the account has no such
// workspace, CodeQuotaExceeded when the account has FabricPartitionQuota
// partitions, and CodeDuplicate (naming "name") when the account already
// has one by that name in that region.
func (s *Store) CreateFabricPartition(ctx context.Context, actor Actor, in CreateFabricPartitionInput) (*FabricPartition, error) {
	return createInAccount(ctx, s, actor, in.Validate, func(accountID, id string) (*FabricPartition, accountCreate, error) {
		workspace := DefaultWorkspaceID(accountID)
		if in.WorkspaceID != "" && in.WorkspaceID != workspace {
			return nil, accountCreate{}, InvalidField("workspace_id", fmt.Sprintf("no workspace %q in this account; leave it out to use the default workspace", in.WorkspaceID))
		}
		now := s.Now()
		p := &FabricPartition{ID: id, AccountID: accountID, WorkspaceID: workspace, Name: in.Name,
			RegionName: in.Region, CreatedAt: now, UpdatedAt: now}
		return p, accountCreate{resource: "fabric_partition", quota: fabricPartitionQuota,
			duplicate: duplicateFabricPartition(p.Name, p.RegionName),
			details:   map[string]any{"name": p.Name, "region": p.RegionName, "workspace_id": p.WorkspaceID}}, nil
	})
}

// RenameFabricPartition renames a partition of the actor's account and
// records a "fabric_partition updated" audit event with the old and new
// names; renaming to the current name changes and records nothing. It
// fails with CodeFabricPartitionNotFound, and CodeDuplicate (naming
// "name") when another partition in the same region has the name.
func (s *Store) RenameFabricPartition(ctx context.Context, actor Actor, id string, in RenameFabricPartitionInput) (*FabricPartition, error) {
	accountID, err := actor.operates()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var p FabricPartition
	err = s.write(ctx, func(tx *gorm.DB) error {
		// Locked, so that a concurrent rename or delete waits for this one.
		if err := takeOwned(tx.Clauses(forUpdate), &p, accountID, id); errors.Is(err, gorm.ErrRecordNotFound) {
			return fabricPartitionNotFound(id)
		} else if err != nil {
			return err
		}
		old := p.Name
		if old == in.Name {
			return nil
		}
		p.Name, p.UpdatedAt = in.Name, s.Now()
		err := tx.Model(&FabricPartition{}).Where("id = ?", p.ID).
			UpdateColumns(map[string]any{"name": p.Name, "updated_at": p.UpdatedAt}).Error
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return duplicateFabricPartition(p.Name, p.RegionName)
		} else if err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "fabric_partition", "updated", []string{lrn("fabric_partition", p.ID)},
			map[string]any{"name": p.Name, "previous_name": old})
	})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// DeleteFabricPartition deletes a partition of the actor's account and
// records a "fabric_partition deleted" audit event. It fails with
// CodeFabricPartitionNotFound. (The reference refuses to delete a
// partition instances are assigned to; launches take no partition yet, so
// none ever is.)
func (s *Store) DeleteFabricPartition(ctx context.Context, actor Actor, id string) (*FabricPartition, error) {
	accountID, err := actor.operates()
	if err != nil {
		return nil, err
	}
	var p FabricPartition
	err = s.write(ctx, func(tx *gorm.DB) error {
		// Locked, so that a concurrent rename or delete waits for this one.
		if err := takeOwned(tx.Clauses(forUpdate), &p, accountID, id); errors.Is(err, gorm.ErrRecordNotFound) {
			return fabricPartitionNotFound(id)
		} else if err != nil {
			return err
		}
		if err := tx.Delete(&p).Error; err != nil {
			return err
		}
		return s.audit(tx, actor, accountID, "fabric_partition", "deleted", []string{lrn("fabric_partition", p.ID)},
			map[string]any{"name": p.Name, "region": p.RegionName})
	})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func duplicateFabricPartition(name, region string) error {
	return &Error{Code: CodeDuplicate, Fields: map[string]string{"name": "is already used in this region"},
		Message:    fmt.Sprintf("name: a fabric partition named %q already exists in %s in this account", name, region),
		Suggestion: "Choose another name, or use the existing partition"}
}

func fabricPartitionNotFound(id string) error {
	return notFoundAs(CodeFabricPartitionNotFound, "fabric partition", id)
}

package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// InstanceDetail is an instance with the filesystems mounted on it and the
// rulesets attached to it, its status resolved to the store's clock: what
// both front doors show.
type InstanceDetail struct {
	Instance
	Mounts     []InstanceMount // by filesystem name
	RulesetIDs []string        // sorted
}

// InstanceMount is a filesystem mounted on an instance.
type InstanceMount struct {
	FilesystemID   string
	FilesystemName string
	MountPoint     string
}

// Instances lists the actor's account's instances, oldest first. Terminated
// instances are left out, as Lambda does; Instance still finds them.
func (s *Store) Instances(ctx context.Context, actor Actor) ([]InstanceDetail, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	out, err := s.loadInstances(ctx, accountID)
	return out, err
}

// Instance returns one instance of the actor's account, terminated or not.
// It fails with CodeNotFound for ids of other accounts too.
func (s *Store) Instance(ctx context.Context, actor Actor, id string) (*InstanceDetail, error) {
	accountID, err := actor.ownAccount()
	if err != nil {
		return nil, err
	}
	db := s.read(ctx)
	rows, err := instancesByID(db, accountID, []string{id})
	if err != nil {
		return nil, err
	}
	out, err := s.details(db, rows)
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}

// instancesByID returns the account's instances with the given ids, in
// that order, or CodeNotFound naming the first id that is not one of them.
// Writes pass db with a FOR UPDATE clause: rows are read in id order, so
// two writers lock them in the same order and never deadlock.
func instancesByID(db *gorm.DB, accountID string, ids []string) ([]Instance, error) {
	for _, id := range ids {
		if !IsID(id) {
			return nil, NotFound("instance", id)
		}
	}
	var rows []Instance
	err := db.Where("account_id = ? AND id IN ?", accountID, ids).
		Order("id").Find(&rows).Error
	if err != nil {
		return nil, err
	}
	byID := make(map[string]Instance, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	out := make([]Instance, len(ids))
	for i, id := range ids {
		r, ok := byID[id]
		if !ok {
			return nil, NotFound("instance", id)
		}
		out[i] = r
	}
	return out, nil
}

// details resolves the rows' statuses and loads their mounts and rulesets.
func (s *Store) details(db *gorm.DB, rows []Instance) ([]InstanceDetail, error) {
	return detailsAt(db, rows, s.Now())
}

// detailsAt is details with the rows' statuses resolved to now.
func detailsAt(db *gorm.DB, rows []Instance, now time.Time) ([]InstanceDetail, error) {
	out := make([]InstanceDetail, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]string, len(rows))
	index := make(map[string]*InstanceDetail, len(rows))
	for i := range rows {
		rows[i].resolve(now)
		out[i] = InstanceDetail{Instance: rows[i], Mounts: []InstanceMount{}, RulesetIDs: []string{}}
		ids[i] = rows[i].ID
		index[rows[i].ID] = &out[i]
	}
	mounts, err := findInstanceMounts(db, ids)
	if err != nil {
		return nil, err
	}
	for _, m := range mounts {
		d := index[m.instanceID]
		d.Mounts = append(d.Mounts, m.InstanceMount)
	}
	attached, err := findInstanceRulesets(db, ids)
	if err != nil {
		return nil, err
	}
	for _, a := range attached {
		d := index[a.InstanceID]
		d.RulesetIDs = append(d.RulesetIDs, a.RulesetID)
	}
	return out, nil
}

package models

import (
	"context"

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
	db := s.read(ctx)
	var rows []Instance
	err = db.Where("account_id = ?", accountID).
		Where("NOT (status = ? OR (status = ? AND status_until <= ?))", InstanceTerminated, InstanceTerminating, s.Now()).
		Order("created_at, id").Find(&rows).Error
	if err != nil {
		return nil, err
	}
	return s.details(db, rows)
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
	out := make([]InstanceDetail, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	now := s.Now()
	ids := make([]string, len(rows))
	index := make(map[string]*InstanceDetail, len(rows))
	for i := range rows {
		rows[i].resolve(now)
		out[i] = InstanceDetail{Instance: rows[i], Mounts: []InstanceMount{}, RulesetIDs: []string{}}
		ids[i] = rows[i].ID
		index[rows[i].ID] = &out[i]
	}
	var mounts []struct {
		InstanceID string
		InstanceMount
	}
	err := db.Table("instance_filesystems").
		Select("instance_filesystems.instance_id, instance_filesystems.filesystem_id, "+
			"filesystems.name AS filesystem_name, instance_filesystems.mount_point").
		Joins("JOIN filesystems ON filesystems.id = instance_filesystems.filesystem_id").
		Where("instance_filesystems.instance_id IN ?", ids).
		Order("filesystems.name").Scan(&mounts).Error
	if err != nil {
		return nil, err
	}
	for _, m := range mounts {
		d := index[m.InstanceID]
		d.Mounts = append(d.Mounts, m.InstanceMount)
	}
	var attached []InstanceRuleset
	err = db.Table("instance_rulesets").Select("instance_rulesets.*").
		Joins("JOIN firewall_rulesets ON firewall_rulesets.id = instance_rulesets.ruleset_id").
		Where("instance_rulesets.instance_id IN ?", ids).
		Order("instance_rulesets.ruleset_id").Scan(&attached).Error
	if err != nil {
		return nil, err
	}
	for _, a := range attached {
		d := index[a.InstanceID]
		d.RulesetIDs = append(d.RulesetIDs, a.RulesetID)
	}
	return out, nil
}

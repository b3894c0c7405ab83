package models

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// maxInstanceIDs bounds one terminate or restart request.
const maxInstanceIDs = 100

// InstanceIDsInput names the instances a terminate or restart applies to.
type InstanceIDsInput struct {
	InstanceIDs []string `json:"instance_ids"`
}

// Validate requires at least one id and drops repeated ones, so an id
// named twice is changed (and recorded) once.
func (in *InstanceIDsInput) Validate() error {
	var f FieldErrors
	switch n := len(in.InstanceIDs); {
	case n == 0:
		f.Add("instance_ids", "at least one instance id is required")
	case n > maxInstanceIDs:
		f.Add("instance_ids", fmt.Sprintf("at most %d ids are allowed, got %d", maxInstanceIDs, n))
	}
	seen := map[string]bool{}
	unique := in.InstanceIDs[:0:0]
	for i, id := range in.InstanceIDs {
		if id == "" {
			f.Add(fmt.Sprintf("instance_ids.%d", i), "is required")
		}
		checkLine(&f, fmt.Sprintf("instance_ids.%d", i), id)
		if !seen[id] {
			seen[id] = true
			unique = append(unique, id)
		}
	}
	in.InstanceIDs = unique
	return f.Err()
}

// instanceChange changes one locked instance whose status is resolved to
// now. It returns the audit details of the change, or nil when it left the
// instance as it was.
type instanceChange func(inst *Instance, now time.Time) (map[string]any, error)

// changeInstances applies change to the account's instances with the given
// ids, all or none, in one transaction: CodeNotFound names the first id that
// is not the account's. Each changed instance is saved with one audit event
// (instance/<action>); an unchanged one is saved only if its status moved
// on by itself, which is no change of anyone's making and is not recorded.
func (s *Store) changeInstances(ctx context.Context, actor Actor, accountID string, ids []string, action string, change instanceChange) ([]InstanceDetail, error) {
	var out []InstanceDetail
	err := s.write(ctx, func(tx *gorm.DB) error {
		rows, err := instancesByID(tx.Clauses(forUpdate), accountID, ids)
		if err != nil {
			return err
		}
		now := s.Now()
		for i := range rows {
			inst := &rows[i]
			resolved := inst.resolve(now)
			details, err := change(inst, now)
			if err != nil {
				return err
			}
			if details == nil && !resolved {
				continue
			}
			if details != nil {
				inst.UpdatedAt = now
			}
			if err := saveInstance(tx, inst); err != nil {
				return err
			}
			if details != nil {
				if err := s.audit(tx, actor, accountID, "instance", action, []string{lrn("instance", inst.ID)}, details); err != nil {
					return err
				}
			}
		}
		out, err = s.details(tx, rows)
		return err
	})
	return out, err
}

// saveInstance writes the fields operations change. UpdatedAt is written
// explicitly so that GORM does not stamp the wall clock over the store's.
func saveInstance(tx *gorm.DB, inst *Instance) error {
	return tx.Model(&Instance{}).Where("id = ?", inst.ID).Updates(map[string]any{
		"name": inst.Name, "status": inst.Status, "status_until": inst.StatusUntil, "updated_at": inst.UpdatedAt,
		"terminated_at": inst.TerminatedAt,
	}).Error
}

// TerminateInstances moves the actor's account's instances to terminating,
// then terminated after Config.InstanceTerminateTime; their capacity is free
// at once. Instances already terminating or terminated are left as they are
// and answered too, so a retried request succeeds. Codes:
// CodeInvalidParameters, CodeNotFound (any id not the account's; nothing
// changes). Records instance/terminated per instance it moves.
func (s *Store) TerminateInstances(ctx context.Context, actor Actor, in InstanceIDsInput) ([]InstanceDetail, error) {
	accountID, err := actor.operates()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	return s.changeInstances(ctx, actor, accountID, in.InstanceIDs, "terminated", func(inst *Instance, now time.Time) (map[string]any, error) {
		if !inst.Actions().Terminate.Available {
			return nil, nil
		}
		from := inst.Status
		until := now.Add(s.cfg.InstanceTerminateTime)
		inst.Status, inst.StatusUntil, inst.TerminatedAt = InstanceTerminating, &until, &until
		return map[string]any{"previous_status": from}, nil
	})
}

// RestartInstances boots the actor's account's active instances again, for
// Config.InstanceBootTime. Codes: CodeInvalidParameters, CodeNotFound (any
// id not the account's), CodeConflict (an instance that is booting,
// terminating or terminated cannot be restarted); on any error nothing
// changes. Records instance/restarted per instance.
func (s *Store) RestartInstances(ctx context.Context, actor Actor, in InstanceIDsInput) ([]InstanceDetail, error) {
	accountID, err := actor.operates()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	return s.changeInstances(ctx, actor, accountID, in.InstanceIDs, "restarted", func(inst *Instance, now time.Time) (map[string]any, error) {
		if a := inst.Actions().Restart; !a.Available {
			return nil, &Error{Code: CodeConflict,
				Message:    fmt.Sprintf("Instance %q is %s and cannot be restarted: %s", inst.ID, inst.Status, a.ReasonDescription),
				Suggestion: "Only active instances can be restarted; check the instance's actions.restart"}
		}
		until := now.Add(s.cfg.InstanceBootTime)
		inst.Status, inst.StatusUntil = InstanceBooting, &until
		return map[string]any{}, nil
	})
}

// UpdateInstanceInput changes an instance; a nil field stays as it is.
type UpdateInstanceInput struct {
	Name *string `json:"name"`
}

// Validate checks the name's length (0-64; empty clears it).
func (in UpdateInstanceInput) Validate() error {
	var f FieldErrors
	if in.Name != nil {
		checkInstanceName(&f, *in.Name)
	}
	return f.Err()
}

// checkInstanceName checks an instance's optional name, at launch or
// rename: at most 64 characters, within the text rule.
func checkInstanceName(f *FieldErrors, name string) {
	if !checkLine(f, "name", name) {
		return
	}
	if n := utf8.RuneCountInString(name); n > 64 {
		f.Add("name", fmt.Sprintf("must be at most 64 characters, got %d", n))
	}
}

// UpdateInstance renames an instance of the actor's account (CodeNotFound
// for any other id). Records instance/updated when the name changes.
func (s *Store) UpdateInstance(ctx context.Context, actor Actor, id string, in UpdateInstanceInput) (*InstanceDetail, error) {
	accountID, err := actor.operates()
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	out, err := s.changeInstances(ctx, actor, accountID, []string{id}, "updated", func(inst *Instance, _ time.Time) (map[string]any, error) {
		if in.Name == nil || *in.Name == inst.Name {
			return nil, nil
		}
		details := map[string]any{"name": *in.Name, "previous_name": inst.Name}
		inst.Name = *in.Name
		return details, nil
	})
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}

package models

import "context"

// SetupPending reports whether no user exists yet, so that signing in is
// not possible and the first owner must use the setup link the server
// logs. It reads one row at most and records nothing.
func (s *Store) SetupPending(ctx context.Context) (bool, error) {
	var ids []string
	if err := s.read(ctx).Model(&User{}).Limit(1).Pluck("id", &ids).Error; err != nil {
		return false, err
	}
	return len(ids) == 0, nil
}

package models

import "context"

// PendingMigrations lists the migrations this binary knows that the
// database has not applied yet, in order: a replica started before
// `cloudplane migrate` ran is not ready to serve. It reads the table
// Migrate records applied steps in.
func (s *Store) PendingMigrations(ctx context.Context) ([]string, error) {
	var applied []string
	if err := s.read(ctx).Table("schema_migrations").Pluck("id", &applied).Error; err != nil {
		return nil, err
	}
	done := make(map[string]bool, len(applied))
	for _, id := range applied {
		done[id] = true
	}
	var pending []string
	for _, m := range migrations {
		if !done[m.ID] {
			pending = append(pending, m.ID)
		}
	}
	return pending, nil
}

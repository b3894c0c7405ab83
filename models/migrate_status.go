package models

import "context"

// PendingMigrations lists the migrations this binary knows that the
// database has not applied yet, in order: a replica started before
// `cloudplane migrate` ran is not ready to serve.
func (s *Store) PendingMigrations(ctx context.Context) ([]string, error) {
	states, err := MigrationStatus(ctx, s.db)
	if err != nil {
		return nil, err
	}
	var pending []string
	for _, st := range states {
		if !st.Applied && !st.Unknown {
			pending = append(pending, st.ID)
		}
	}
	return pending, nil
}

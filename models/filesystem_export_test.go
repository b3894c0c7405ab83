package models

import "context"

// LoadFilesystems reads the account's filesystem list from the database,
// past the cache, as a changed list is read.
func (s *Store) LoadFilesystems(ctx context.Context, accountID string) ([]FilesystemView, error) {
	return s.loadFilesystems(ctx, accountID)
}

package database

import "testing"

// The writer kicks the checkpointer once it has committed both
// checkpointChanges changes and checkpointCommits commits since the last
// kick: one client's single-change commits every 50 changes, as before;
// 64 clients' batches of thirty every 20 commits, not every other one.
func TestCheckpointerIsKickedAfterEnoughChangesAndCommits(t *testing.T) {
	for _, tc := range []struct{ changes, every int }{
		{changes: 1, every: 50}, {changes: 2, every: 25}, {changes: 3, every: 20}, {changes: 30, every: 20},
		{changes: 64, every: 20},
	} {
		w := &sqliteWriter{kick: make(chan struct{}, 1)}
		kicks := 0
		for commit := 1; commit <= 3*tc.every; commit++ {
			batch := make([]*queuedWrite, tc.changes)
			for i := range batch {
				batch[i] = &queuedWrite{answer: make(chan writeAnswer, 1)}
			}
			w.committed(batch)
			select {
			case <-w.kick:
				kicks++
			default:
			}
			if want := commit / tc.every; kicks != want {
				t.Fatalf("commits of %d changes: %d kicks after %d commits, want %d", tc.changes, kicks, commit, want)
			}
		}
		if got := w.figures.read(); got.Commits != int64(3*tc.every) || got.Changes != int64(3*tc.every*tc.changes) {
			t.Fatalf("commits of %d changes: counted %d commits and %d changes", tc.changes, got.Commits, got.Changes)
		}
	}
}

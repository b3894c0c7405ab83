package database

import "testing"

// The writer kicks the checkpointer every checkpointEvery commits, however
// many changes each commit holds: a pass costs the pages written since the
// one before, and those come per commit. Counted in changes, 64 clients'
// batches of thirty kicked a pass every other commit.
func TestCheckpointerIsKickedPerCommitsNotChanges(t *testing.T) {
	for _, changes := range []int{1, 2, 30, 64} {
		w := &sqliteWriter{kick: make(chan struct{}, 1)}
		kicks := 0
		for commit := 1; commit <= 3*checkpointEvery; commit++ {
			batch := make([]*queuedWrite, changes)
			for i := range batch {
				batch[i] = &queuedWrite{answer: make(chan writeAnswer, 1)}
			}
			w.committed(batch)
			select {
			case <-w.kick:
				kicks++
			default:
			}
			if want := commit / checkpointEvery; kicks != want {
				t.Fatalf("commits of %d changes: %d kicks after %d commits, want %d", changes, kicks, commit, want)
			}
		}
		if got := w.figures.read(); got.Commits != 3*checkpointEvery || got.Changes != int64(3*checkpointEvery*changes) {
			t.Fatalf("commits of %d changes: counted %d commits and %d changes", changes, got.Commits, got.Changes)
		}
	}
}

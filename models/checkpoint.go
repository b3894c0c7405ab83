package models

import (
	"context"
	"database/sql"
	"os"
	"time"
)

// Checkpoints keep the WAL short. SQLite starts the WAL over from its
// first frame only when a write transaction begins after a checkpoint
// copied every frame back. A checkpoint beside a busy writer never gets
// there: more frames are committed while it copies, so the WAL file grew
// without end (1.6 GB after 20 s of creates at full speed).
//
// So a checkpoint is done in two passes. A read connection copies the bulk
// beside the writer (checkpoint), which goes on committing meanwhile. Then
// the writer goroutine, between two batches, copies the few frames
// committed since (finishCheckpoint): nothing is committed while it does,
// so the pass completes unless a reader still reads an old snapshot, and
// the next batch starts the WAL over.

// restartFrames is how long the WAL may grow (in 4 KiB pages, 64 MiB)
// before the writer finishes a checkpoint: its pass syncs two files, a
// wait of a few milliseconds that the batch behind it shares, so it is
// done every few seconds under full load rather than every kick. (Tests
// lower a writer's copy, restartAt.)
const restartFrames = 16384

// walSizeLimit is the size SQLite truncates the WAL file back to when it
// starts over, should it have grown past it.
const walSizeLimit = restartFrames * 4096

// finishFrames is how many frames a pass of the checkpointer may have
// found new for the writer's pass to follow it.
const finishFrames = 512

// finishAttempts is how many batches in a row the writer tries its pass
// while readers of older snapshots keep it from completing.
const finishAttempts = 4

// checkpoint copies the WAL back into the database file when kicked, on
// a read connection, until the writer closes. A checkpoint that fails
// (the file busy with another process's) is left to the next kick.
//
// Once the WAL is long enough to start over, it runs passes until one
// finds little new to copy: each pass copies what was committed during
// the one before, so they shorten quickly, and what is left for the
// writer's pass (which the next batch waits for) is a few hundred frames,
// a millisecond or two, instead of tens of milliseconds.
func (w *sqliteWriter) checkpoint(readers *sql.DB, path string) {
	for {
		select {
		case <-w.done:
			return
		case <-w.kick:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		frames, copied, err := walCheckpoint(ctx, readers)
		for pass := 0; err == nil && frames >= w.restartAt.Load(); pass++ {
			before := copied
			frames, copied, err = walCheckpoint(ctx, readers)
			// Writes faster than a pass copies never leave little: the
			// writer's pass then copies more, but the WAL stays bounded.
			if err == nil && (frames-before <= finishFrames || pass == 4) {
				syncFile(path)
				w.finish.Store(finishAttempts)
				break
			}
		}
		cancel()
	}
}

// syncFile flushes the pages the checkpointer's passes wrote to the
// database file. SQLite syncs it only in the pass that completes, the
// writer's, where it took 10 to 20 ms with every batch waiting; done here
// first, it leaves that pass a few pages to flush. It is only about
// timing: the writer's pass still syncs before the WAL may start over.
func syncFile(path string) {
	if f, err := os.Open(path); err == nil {
		_ = f.Sync()
		_ = f.Close()
	}
}

// finishCheckpoint is the writer's pass, run between batches once the
// checkpointer's passes ended. A reader of an older snapshot keeps it from
// copying the last frames; it is then tried again at the next batches.
func (w *sqliteWriter) finishCheckpoint() {
	left := w.finish.Load()
	if left == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	frames, copied, err := walCheckpoint(ctx, w.sql)
	if err == nil && copied == frames {
		w.finish.Store(0)
		if frames > 0 {
			w.figures.checkpoints.Add(1)
		}
		return
	}
	w.finish.Store(left - 1)
}

// walCheckpoint runs a PASSIVE checkpoint on a connection of db: it copies
// what it can without waiting for readers or the writer. It reports the
// WAL's frames and how many of them are now in the database file.
func walCheckpoint(ctx context.Context, db *sql.DB) (frames, copied int64, err error) {
	var busy int64
	err = db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, copied, err
}

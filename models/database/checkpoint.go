package database

import (
	"context"
	"database/sql"
	"time"
)

// Checkpoints keep the WAL short. SQLite starts the WAL over from its
// first frame only when a write transaction begins after a checkpoint
// copied every frame back. A checkpoint beside a busy writer never gets
// there: more frames are committed while it copies, so the WAL file grew
// without end.
//
// So a checkpoint is done in two passes. A read connection copies the bulk
// beside the writer (checkpoint), which goes on committing meanwhile. Then
// the writer goroutine, between two batches, copies the few frames
// committed since (finishCheckpoint): nothing is committed while it does,
// so the pass completes unless a reader still reads an old snapshot, and
// the next batch starts the WAL over.

// restartFrames is how long the WAL may grow (in 4 KiB pages, 256 MiB)
// before the writer finishes a checkpoint. Starting over costs the batch
// behind it three syncs (the writer's pass syncs the WAL and the
// database file, the next commit the WAL's new header), each a flush of
// the disk's cache, with every write waiting. At 64 MiB that came two or
// three times a second under full load and was most of the write tail:
// POST p99 at 4 connections 8.4-10.7 ms against 5.9-7.0 at 256 MiB, 5.6-6.7
// at 1 GiB (docs/performance.md). (Tests lower a writer's copy, restartAt.)
const restartFrames = 65536

// walTrimBytes is the size SQLite truncates the WAL file back to when it
// starts over, should it have grown past it: past the length it reaches
// in a restart's cycle, so that steady writes never truncate it. Each
// truncation freed blocks the next cycle allocated again, and a mount
// with online discard waits for the disk to discard them, inside the
// commit that starts the WAL over.
const walTrimBytes = 2 * restartFrames * 4096

// largeValueBytes bounds the large values (attachment chunks) the WAL may
// take in before the writer forces it to start over (below): uploads
// fill the WAL far faster than small changes, and its size under them
// is a promise (the uploads load test's 128 MiB).
const largeValueBytes = 64 << 20

// finishFrames is how many frames a pass of the checkpointer may have
// found new for the writer's pass to follow it.
const finishFrames = 512

// finishAttempts is how many batches in a row the writer tries its pass
// while readers of older snapshots keep it from completing.
const finishAttempts = 4

// Large values (attachment chunks) make the WAL grow faster than the
// checkpointer's passes copy it back, which never leave little for the
// writer's pass: the WAL grew by every byte uploaded. So their bytes
// count: every checkpointBytes kick the checkpointer (a kick by count
// waits for checkpointChanges changes in checkpointCommits commits,
// letting 50 such values through first), and once largeValueBytes of them
// went in since the WAL last started over, the writer runs its pass
// before every batch until one completes. That pass copies what the
// checkpointer has not yet, with every write waiting: uploads are slowed
// to the speed the WAL is copied back, and the WAL stays near
// largeValueBytes.
const checkpointBytes = 8 << 20

// wroteLarge counts n bytes of a large value just committed, and kicks
// the checkpointer each checkpointBytes.
func (w *sqliteWriter) wroteLarge(n int) {
	w.largeSinceRestart.Add(int64(n))
	if w.largeBytes.Add(int64(n)) < checkpointBytes {
		return
	}
	w.largeBytes.Store(0)
	select {
	case w.kick <- struct{}{}:
	default: // one is already due
	}
}

// checkpoint copies the WAL back into the database file when kicked, on
// a read connection, until the writer closes. A checkpoint that fails
// (the file busy with another process's) is left to the next kick.
//
// Once the WAL is long enough to start over, it runs passes until one
// finds little new to copy: each pass copies what was committed during
// the one before, so they shorten quickly, and what is left for the
// writer's pass (which the next batch waits for) is a few hundred frames,
// a millisecond or two, instead of tens of milliseconds.
func (w *sqliteWriter) checkpoint(readers *sql.DB, path string, held *heldFiles) {
	for {
		select {
		case <-w.done:
			return
		case <-w.kick:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		frames, copied, err := w.pass(ctx, readers)
		for pass := 0; err == nil && frames >= w.restartAt.Load(); pass++ {
			before := copied
			frames, copied, err = w.pass(ctx, readers)
			// Writes faster than a pass copies never leave little: the
			// writer's pass then copies more, but the WAL stays bounded.
			if err == nil && (frames-before <= finishFrames || pass == 4) {
				syncFile(held, path)
				w.finish.Store(finishAttempts)
				break
			}
		}
		cancel()
	}
}

// syncFile flushes the pages the checkpointer's passes wrote to the
// database file. SQLite syncs it only in the pass that completes, the
// writer's, where every batch waited for it; done here first, it leaves that pass a few pages to flush. It is only about
// timing: the writer's pass still syncs before the WAL may start over.
func syncFile(held *heldFiles, path string) {
	if f, err := held.open(path); err == nil {
		_ = f.Sync()
	}
}

// finishCheckpoint is the writer's pass, run between batches once the
// checkpointer's passes ended, or once large values passed largeValueBytes
// since the WAL last started over. A reader of an older snapshot keeps it
// from copying the last frames; it is then tried again at the next
// batches.
func (w *sqliteWriter) finishCheckpoint() {
	left := w.finish.Load()
	forced := w.largeSinceRestart.Load() >= largeValueBytes
	if left == 0 && !forced {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if forced {
		// Waits for the checkpointer's pass under way, instead of failing
		// beside it batch after batch.
		w.passing.Lock()
	} else if !w.passing.TryLock() {
		return // tried again at the next batch
	}
	frames, copied, err := walCheckpoint(ctx, w.sql)
	w.passing.Unlock()
	if err == nil && frames >= 0 && copied == frames {
		w.finish.Store(0)
		w.largeSinceRestart.Store(0)
		if frames > 0 {
			w.figures.checkpoints.Add(1)
		}
		return
	}
	if left > 0 {
		w.finish.Store(left - 1)
	}
}

// walCheckpoint runs a PASSIVE checkpoint on a connection of db: it copies
// what it can without waiting for readers or the writer. It reports the
// WAL's frames and how many of them are now in the database file.
func walCheckpoint(ctx context.Context, db *sql.DB) (frames, copied int64, err error) {
	var busy int64
	err = db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, copied, err
}

// pass is one of the checkpointer's passes, never beside the writer's.
func (w *sqliteWriter) pass(ctx context.Context, readers *sql.DB) (frames, copied int64, err error) {
	w.passing.Lock()
	defer w.passing.Unlock()
	return walCheckpoint(ctx, readers)
}

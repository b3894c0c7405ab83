package webhooks

import (
	"context"
	"fmt"
	"time"

	"cloudplane/models"
)

// maxRecordBatch bounds how many attempts one transaction stores.
const maxRecordBatch = 64

// finished is an attempt on its way to the database; stored reports the
// outcome to the worker that made it.
type finished struct {
	models.AttemptRecord
	stored chan error
}

// keep hands an attempt to the recorder and waits until it is stored, so
// a worker (and its lease) is busy until its attempt is in the log.
func (d *Dispatcher) keep(rec models.AttemptRecord) error {
	stored := make(chan error, 1)
	d.finished <- finished{AttemptRecord: rec, stored: stored}
	return <-stored
}

// record stores attempts until stop is closed: it takes every attempt that
// has finished meanwhile, up to maxRecordBatch, and commits them together.
// One writer instead of one transaction per worker: SQLite has one write
// lock, and on PostgreSQL each commit waits for a disk flush.
func (d *Dispatcher) record(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		var batch []finished
		select {
		case f := <-d.finished:
			batch = append(batch, f)
		case <-stop:
			return
		}
	more:
		for len(batch) < maxRecordBatch {
			select {
			case f := <-d.finished:
				batch = append(batch, f)
			default:
				break more
			}
		}
		d.storeBatch(batch)
	}
}

func (d *Dispatcher) storeBatch(batch []finished) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	records := make([]models.AttemptRecord, len(batch))
	for i, f := range batch {
		records[i] = f.AttemptRecord
	}
	err := d.store.RecordWebhookAttempts(ctx, d.owner, records)
	if err != nil && len(batch) > 1 {
		// One record the database refuses must not lose the others.
		for _, f := range batch {
			f.stored <- d.storeOne(ctx, f.AttemptRecord)
		}
		return
	}
	if err != nil {
		err = d.storeBare(ctx, batch[0].AttemptRecord, err)
	}
	for _, f := range batch {
		f.stored <- err
	}
}

func (d *Dispatcher) storeOne(ctx context.Context, rec models.AttemptRecord) error {
	err := d.store.RecordWebhookAttempts(ctx, d.owner, []models.AttemptRecord{rec})
	if err != nil {
		err = d.storeBare(ctx, rec, err)
	}
	return err
}

// storeBare stores an attempt that the database refused once more,
// without anything the receiver chose (headers, body, error text), so
// that the delivery still moves on: an attempt left unrecorded keeps its
// lease until it expires, and the delivery is then sent again, forever.
func (d *Dispatcher) storeBare(ctx context.Context, rec models.AttemptRecord, cause error) error {
	a := rec.Attempt
	rec.Attempt = models.WebhookAttempt{URL: a.URL, StartedAt: a.StartedAt, Duration: a.Duration,
		RemoteAddr: a.RemoteAddr, StatusCode: a.StatusCode, Succeeded: a.Succeeded, ErrorKind: a.ErrorKind,
		RequestHeaders: a.RequestHeaders, ResponseHeaders: map[string][]string{},
		Error: "the attempt's details could not be stored: " + cause.Error()}
	if err := d.store.RecordWebhookAttempts(ctx, d.owner, []models.AttemptRecord{rec}); err != nil {
		return fmt.Errorf("%w (and without its details: %w)", cause, err)
	}
	d.cfg.Log.Error("webhooks: stored an attempt without its details", "delivery", rec.Job.DeliveryID, "err", cause)
	return nil
}

package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/semaphore"

	"cloudplane/handlers/observe"
	"cloudplane/models"
)

// DefaultUploadsInFlight is how many upload bodies are received at once
// when UploadConfig leaves it unset. Each holds AttachmentChunkSize of
// memory and takes turns at the database's writer with everyone else.
const DefaultUploadsInFlight = 4

// UploadConfig bounds the uploads to presigned URLs.
type UploadConfig struct {
	// InFlight is how many bodies are received at once; more wait their
	// turn within their request's deadline, then answer 503.
	InFlight int
	// PerAccount is how many of those one account may have at once
	// (InFlight/2 when unset, at least 1), so that one account's uploads
	// never take every turn.
	PerAccount int
	// BodyTimeout bounds the receiving of one body, once its turn came.
	BodyTimeout time.Duration
	// ProgressTimeout is how long the body may go without a byte arriving
	// (DefaultUploadProgressTimeout when unset); then the upload fails and
	// gives its turn back.
	ProgressTimeout time.Duration
}

// Uploads receives the bodies sent to presigned upload URLs. Everything
// that can refuse one is checked before its body is read (past the first
// 8 KiB the server reads with the headers): the URL (signature and
// expiry, which the server checked already before reading any of the
// body), the account's rate limit, the attachment (a URL takes one body);
// then the body waits for one of its account's turns and one of the
// server's, spends the account's upload budget, and is stored as it
// arrives, for as long as it keeps arriving.
type Uploads struct {
	store    *models.Store
	guard    *Guard
	gate     *semaphore.Weighted
	accounts *accountTurns
	cfg      UploadConfig
	log      *slog.Logger
}

// NewUploads returns the upload route's handler; guard's limits apply.
func NewUploads(store *models.Store, guard *Guard, cfg UploadConfig) *Uploads {
	if cfg.InFlight <= 0 {
		cfg.InFlight = DefaultUploadsInFlight
	}
	if cfg.PerAccount <= 0 {
		cfg.PerAccount = max(1, cfg.InFlight/2)
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 5 * time.Minute
	}
	if cfg.ProgressTimeout <= 0 {
		cfg.ProgressTimeout = DefaultUploadProgressTimeout
	}
	return &Uploads{store: store, guard: guard, gate: semaphore.NewWeighted(int64(cfg.InFlight)),
		accounts: newAccountTurns(cfg.PerAccount), cfg: cfg, log: guard.log}
}

var errUploadsBusy = &models.Error{Code: models.CodeProviderUnavailable,
	Message:    "The server is receiving as many uploads as it takes at once, and this one's turn did not come in time",
	Suggestion: "Send the file again to the same upload_url after the number of seconds in the Retry-After header"}

var errAccountUploadsBusy = &models.Error{Code: models.CodeProviderUnavailable,
	Message:    "The account has as many uploads in flight as it may have at once, and this one's turn did not come in time",
	Suggestion: "Send the file again to the same upload_url after the number of seconds in the Retry-After header"}

// uploadTurnRefused says whether err is an upload that waited in vain for
// a turn: load shed on purpose, not a failure of the database.
func uploadTurnRefused(err error) bool {
	return errors.Is(err, errUploadsBusy) || errors.Is(err, errAccountUploadsBusy)
}

var errUploadBudget = &models.Error{Code: models.CodeRateLimited,
	Message:    "The account has sent as many upload bytes as its budget allows for now",
	Suggestion: "Send the file again to the same upload_url after the number of seconds in the Retry-After header"}

// Receive stores the body of a PUT to a presigned upload URL.
func (u *Uploads) Receive(c *fiber.Ctx) error {
	t, err := transfer(c, models.TransferUpload)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	target, err := u.store.UploadTarget(ctx, t)
	if err != nil {
		return err
	}
	account := target.AccountID()
	observe.SetAccount(c, account)
	// Every PUT with a valid URL counts, a refused one too: a client
	// looping on a used URL is held to the account's pace.
	if limited := u.guard.limit(c, u.guard.limits.General, account); limited != nil {
		return limited
	}
	if err := u.store.TakesBytes(ctx, target); err != nil {
		return err
	}
	// The account's turn first, so that its uploads waiting do not hold
	// turns other accounts need.
	release, err := u.accounts.acquire(ctx, account)
	if err != nil {
		return errAccountUploadsBusy
	}
	defer release()
	if err := u.gate.Acquire(ctx, 1); err != nil {
		return errUploadsBusy
	}
	defer u.gate.Release(1)
	// Spent once the body's turn came: an upload that waited in vain
	// (503) and is sent again spends once.
	if err := u.spend(c, account, target.Size()); err != nil {
		return err
	}
	// The body may take longer to arrive than a request may take, but no
	// longer than BodyTimeout, and it must keep arriving: reads see no
	// context, so both are the connection's read deadline.
	until := time.Now().Add(u.cfg.BodyTimeout)
	bodyCtx, cancel := context.WithDeadline(context.WithoutCancel(ctx), until)
	defer cancel()
	if err := u.store.ReceiveAttachment(bodyCtx, target, u.requestBody(c, until)); err != nil {
		return err
	}
	return ok(c, struct{}{})
}

// spend takes size bytes, in whole MiB, from the account's upload budget.
// A budget that cannot be consulted lets the upload through, as the rate
// limits do.
func (u *Uploads) spend(c *fiber.Ctx, account string, size int64) error {
	budget := u.guard.limits.UploadMiB
	if budget == nil {
		return nil
	}
	res, err := budget.Spend(c.UserContext(), "upload:"+account, int((size+(1<<20)-1)>>20))
	if err != nil {
		u.log.WarnContext(c.UserContext(), "upload budget unavailable; upload let through", "err", err)
		return nil
	}
	if res.Allowed {
		return nil
	}
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(math.Ceil(res.RetryAfter.Seconds()))))
	return errUploadBudget
}

// requestBody is the request's body as it arrives, each read within
// ProgressTimeout and all by until: the server streams upload bodies
// (StreamRequestBody); without that, the body it read.
func (u *Uploads) requestBody(c *fiber.Ctx, until time.Time) io.Reader {
	stream := c.Context().RequestBodyStream()
	if stream == nil {
		return bytes.NewReader(c.Body())
	}
	conn := c.Context().Conn()
	if conn == nil {
		return stream
	}
	return &progressDeadline{body: stream, conn: conn, timeout: u.cfg.ProgressTimeout, until: until}
}

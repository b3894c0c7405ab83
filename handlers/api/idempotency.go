package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/models"
)

// Headers of idempotent retries.
const (
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

// replayedHeaders are the headers stored with an answer and replayed
// with it; the others (request id, rate limits) describe the retry.
var replayedHeaders = []string{fiber.HeaderContentType, fiber.HeaderETag}

// Idempotency makes writes under /api/v1 safe to retry: the first request
// with an Idempotency-Key runs, and its answer is stored for 24 h and
// replayed to retries of the same request. It runs after Authenticate (the
// key belongs to the account, and a retry still counts against the general
// rate limit) and before the route's own middleware, so a replayed launch
// spends no launch budget.
type Idempotency struct {
	store *models.Store
	// lease is how long a running request's claim holds before a retry may
	// take it over, as if its process had died.
	lease time.Duration
	log   *slog.Logger
}

// NewIdempotency returns the middleware; lease should outlast the longest
// request (the request timeout).
func NewIdempotency(store *models.Store, lease time.Duration, log *slog.Logger) *Idempotency {
	return &Idempotency{store: store, lease: lease, log: log}
}

// Handle claims the request's key, runs the request and stores its answer,
// or replays the stored one. Answers a retry may change are not stored and
// free the key at once: 5xx (the server failed, as with Stripe), 409 (a
// lost race) and 429 (refused before doing anything, so not counted).
func (m *Idempotency) Handle(c *fiber.Ctx) error {
	// fasthttp trims a header's value, so a key of spaces reads as "":
	// presence, not the value, says whether the client asked for a key.
	sent := c.Request().Header.PeekAll(HeaderIdempotencyKey)
	if len(sent) == 0 || !isWrite(c.Method()) {
		return c.Next()
	}
	key := strings.Trim(string(sent[0]), " \t")
	if err := checkIdempotencyKey(key); err != nil {
		return err
	}
	actor := Actor(c)
	accountID := actor.AccountID
	key = models.IdempotencyRowKey(actor, key) // a credential replays only its own answers
	claim, err := m.store.ClaimIdempotencyKey(c.UserContext(), accountID, key, fingerprint(c, actor.Role), m.lease)
	if err != nil {
		return err
	}
	if claim.Replay != nil {
		return replay(c, claim.Replay)
	}
	done := false
	defer func() {
		if !done { // a panic: free the key for the client's retry
			m.finish(c, accountID, key, claim.Token, false)
		}
	}()
	if err := c.Next(); err != nil {
		if err := c.App().ErrorHandler(c, err); err != nil {
			return err
		}
	}
	done = true
	m.finish(c, accountID, key, claim.Token, storable(c.Response().StatusCode()))
	return nil
}

// finish stores the answer or releases the claim. It outlives the
// request's deadline: an answer already given must be kept for its
// retries. A failure leaves the claim to go stale after the lease.
func (m *Idempotency) finish(c *fiber.Ctx, accountID, key, token string, store bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), 5*time.Second)
	defer cancel()
	var err error
	if store {
		res := c.Response()
		headers := map[string]string{}
		for _, h := range replayedHeaders {
			if v := res.Header.Peek(h); len(v) > 0 {
				headers[h] = string(v)
			}
		}
		body := append([]byte(nil), res.Body()...)
		if kept, ok := c.Locals(replayBodyLocal).([]byte); ok {
			body = kept // the answer held a one-time secret: keep it without
		}
		err = m.store.StoreIdempotentAnswer(ctx, accountID, key, token, res.StatusCode(), headers, body)
	} else {
		err = m.store.ReleaseIdempotencyKey(ctx, accountID, key, token)
	}
	if err != nil {
		m.log.WarnContext(ctx, "idempotency key left claimed until its lease ends", "key", key, "err", err)
	}
}

// replayBodyLocal holds the body to store for replays instead of the
// answer given, set by a handler whose answer holds a one-time secret.
const replayBodyLocal = "idempotency.replay-body"

// replayWithout answers v (as ok does) and has Idempotency store, for
// replays, the answer without the one-time secret it holds: a generated
// private key is shown once, to the request that made it, and is never
// kept in the database. withoutSecret is the same answer minus the secret.
func replayWithout[T, U any](c *fiber.Ctx, v T, withoutSecret U) error {
	kept, err := json.Marshal(dataBody[U]{Data: withoutSecret})
	if err != nil {
		return err
	}
	c.Locals(replayBodyLocal, kept)
	return ok(c, v)
}

func storable(status int) bool {
	return status < 500 && status != fiber.StatusConflict && status != fiber.StatusTooManyRequests
}

func replay(c *fiber.Ctx, stored *models.IdempotencyKey) error {
	for name, value := range stored.ResponseHeaders {
		c.Set(name, value)
	}
	c.Set(HeaderIdempotentReplayed, "true")
	c.Status(stored.StatusCode)
	c.Response().SetBody(stored.ResponseBody)
	return nil
}

func isWrite(method string) bool {
	switch method {
	case fiber.MethodPost, fiber.MethodPut, fiber.MethodPatch, fiber.MethodDelete:
		return true
	}
	return false
}

// checkIdempotencyKey accepts 1 to 255 printable ASCII characters.
func checkIdempotencyKey(key string) error {
	if key == "" {
		return models.InvalidField(HeaderIdempotencyKey, "must not be blank; send 1-255 printable ASCII characters, or no header")
	}
	if len(key) > 255 {
		return models.InvalidField(HeaderIdempotencyKey, "must be at most 255 characters")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return models.InvalidField(HeaderIdempotencyKey, "must be printable ASCII characters")
		}
	}
	return nil
}

// fingerprint names the request a key was first used for: SHA-256 of its
// method, path (with the query), If-Match when sent, body, and the role
// the credential acted with. The role is part of it so that a replay never
// reaches a caller whose role changed since: a demoted member's retry is
// refused as another request (400) rather than answered with what only
// the old role could do, and a promoted one's is not answered with the
// old role's 403. If-Match is
// part of what was asked: a key first used with a stale ETag (412) must
// not replay that 412 for the current one, nor a success for a stale one.
// Without If-Match the fingerprint is what it always was.
func fingerprint(c *fiber.Ctx, role string) string {
	h := sha256.New()
	h.Write([]byte("Role: " + role + "\n"))
	h.Write([]byte(c.Method() + "\n" + c.Path() + "?" + string(c.Request().URI().QueryString()) + "\n"))
	if m := c.Request().Header.Peek(fiber.HeaderIfMatch); len(m) > 0 {
		h.Write([]byte("If-Match: "))
		h.Write(m)
		h.Write([]byte("\n"))
	}
	h.Write(c.Body())
	return hex.EncodeToString(h.Sum(nil))
}

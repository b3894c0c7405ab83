package api

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers/observe"
	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
)

// Limits are the API's rate limiters; a nil limiter is switched off.
type Limits struct {
	// General applies to every authenticated request, per account.
	General ratelimit.Limiter
	// Launch applies to instance launches, per account, on top of General.
	Launch ratelimit.Limiter
	// Unauthenticated applies to failed authentications, per client
	// address (an IPv6 client's /64), so keys cannot be guessed at speed.
	Unauthenticated ratelimit.Limiter
	// UploadMiB is the account's budget of attachment uploads, in MiB,
	// which each PUT to an upload URL spends (its declared size, rounded
	// up) on top of a request of General.
	UploadMiB ratelimit.Budget
}

// Guard authenticates API requests and applies the rate limits.
type Guard struct {
	store  *models.Store
	limits Limits
	log    *slog.Logger
}

// NewGuard returns the guard for the API routes.
func NewGuard(store *models.Store, limits Limits, log *slog.Logger) *Guard {
	return &Guard{store: store, limits: limits, log: log}
}

var errMissingKey = &models.Error{Code: models.CodeInvalidAPIKey,
	Message:    "No API key was given",
	Suggestion: "Pass your key as 'Authorization: Bearer <key>' or with curl -u '<key>:'"}

// Authenticate resolves the API key to an actor, then counts the request
// against the account's general limit. Only authenticated requests reach
// that limit, so a flood of bad keys never spends an account's budget.
//
// Every refused key (401, 403) counts against the client's address
// instead, and is answered 429 once that
// budget is spent. A valid key is still served from such an address: a
// script stuck on a revoked key must not lock out everyone behind the same
// NAT. The price is that a blocked address still learns which keys are
// valid; with 256 random bits per key, that is no help in guessing one.
func (g *Guard) Authenticate(c *fiber.Ctx) error {
	secret, found := bearerKey(c.Get(fiber.HeaderAuthorization))
	var actor models.Actor
	err := error(errMissingKey)
	if found {
		actor, err = g.store.Authenticate(c.UserContext(), secret)
	}
	if err != nil {
		// Only a refused key counts against the address: a database that
		// cannot answer is the server's failure, not a guess, and must be
		// answered as such (503), not turned into 429s for everyone
		// behind the address.
		if refusedKey(err) {
			if limited := g.limit(c, g.limits.Unauthenticated, addressBucket(c)); limited != nil {
				return limited
			}
		}
		return err
	}
	c.Locals(actorLocal, actor)
	observe.SetAccount(c, actor.AccountID)
	if limited := g.limit(c, g.limits.General, actor.AccountID); limited != nil {
		return limited
	}
	if actor.ReadOnly && c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead {
		return errReadOnlyKey
	}
	return c.Next()
}

// errReadOnlyKey refuses a read-only key's write, whatever the route:
// every change under /api/v1 is a method other than GET and HEAD.
var errReadOnlyKey = &models.Error{Code: models.CodeInsufficientScope,
	Message:    "This API key is read-only: it may only read (GET and HEAD)",
	Suggestion: "Use a key with full access for changes; create one in the dashboard or with cloudplane apikeys create"}

func refusedKey(err error) bool {
	code := models.ErrorCode(err)
	return code == models.CodeInvalidAPIKey || code == models.CodeAccountInactive
}

// LaunchLimit applies the launch limit; it runs after Authenticate.
func (g *Guard) LaunchLimit(c *fiber.Ctx) error {
	if limited := g.limit(c, g.limits.Launch, "launch:"+Actor(c).AccountID); limited != nil {
		return limited
	}
	return c.Next()
}

// limit counts one request against key and sets the RateLimit headers.
// It returns the error to answer when the request is over the limit. A
// limiter store that fails lets the request through: an outage of the
// limiter must not become an outage of the API.
func (g *Guard) limit(c *fiber.Ctx, l ratelimit.Limiter, key string) error {
	if l == nil {
		return nil
	}
	c.Locals(limitedLocal, true)
	res, err := l.Allow(c.UserContext(), key)
	if err != nil {
		g.log.WarnContext(c.UserContext(), "rate limiter unavailable; request let through", "err", err)
		return nil
	}
	ratelimit.Headers(res, c.Set)
	if res.Allowed {
		return nil
	}
	return errRateLimited
}

// Describe sets the RateLimit headers on an answer the guard did not
// count, the README promising them on every API answer: the OpenAPI
// document, unknown paths and methods outside /api/v1, requests refused
// before routing. They describe the bucket of the caller's address, the
// one failed authentications count against, read without counting: such
// a request is not a failed authentication, and fetching the public
// document must not bring a client closer to 429. A request the guard
// counted keeps its own; no address limiter, no headers, as when the
// guard's limits are off.
func (g *Guard) Describe(c *fiber.Ctx) {
	l := g.limits.Unauthenticated
	if counted, _ := c.Locals(limitedLocal).(bool); l == nil || counted {
		return
	}
	res, err := l.Peek(c.UserContext(), addressBucket(c))
	if err != nil {
		g.log.WarnContext(c.UserContext(), "rate limiter unavailable; answer without RateLimit headers", "err", err)
		return
	}
	res.Allowed = true // nothing was refused: no Retry-After
	ratelimit.Headers(res, c.Set)
}

// addressBucket is the key of the caller's address in the unauthenticated
// limiter: the one bucket refused keys count against and Describe reads.
func addressBucket(c *fiber.Ctx) string { return "ip:" + ratelimit.AddressKey(c.IP()) }

// limitedLocal marks a request the guard counted, its headers set unless
// the limiter failed; Describe leaves such a request alone rather than
// asking a failing limiter twice.
const limitedLocal = "api.rate_limited"

var errRateLimited = &models.Error{Code: models.CodeRateLimited,
	Message:    "Too many requests",
	Suggestion: "Wait for the number of seconds in the Retry-After header, then try again"}

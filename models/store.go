package models

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	"cloudplane/models/database"
)

// Config holds the operator's knobs that change domain behaviour.
type Config struct {
	// InstanceBootTime is how long a simulated instance stays booting.
	InstanceBootTime time.Duration
	// InstanceTerminateTime is how long it stays terminating.
	InstanceTerminateTime time.Duration
	// Capacity is how many instances of a type can run in a region at once,
	// keyed by instance type then region. Nil means DefaultCapacity.
	Capacity map[string]map[string]int
	// Quotas a new account starts with.
	DefaultFilesystemQuota int
	DefaultRulesetQuota    int
	// Per-account limits on ticket attachments: files, and their bytes
	// (uploaded ones, and pending ones within their upload window). Zero
	// means DefaultAttachmentCountQuota and DefaultAttachmentBytesQuota.
	AttachmentCountQuota int
	AttachmentBytesQuota int64
	// DefaultFabricPartitionQuota: what the migration gave existing accounts.
	DefaultFabricPartitionQuota int
	// PasswordCost is the bcrypt cost; tests lower it.
	PasswordCost int
	// PasswordHashers bounds the bcrypt operations running at once (0:
	// one per CPU); PasswordQueueWait bounds how long one waits for its
	// turn (0: 5 s) before failing with CodeRateLimited;
	// PasswordQueueLength bounds how many wait at once, known devices'
	// sign-ins apart (0: 4 per hasher): more fail at once, the same way.
	PasswordHashers     int
	PasswordQueueWait   time.Duration
	PasswordQueueLength int
	// SessionIdleTimeout ends a dashboard session not used for this long;
	// SessionMaxAge ends it this long after sign-in, used or not.
	SessionIdleTimeout time.Duration
	SessionMaxAge      time.Duration
	// RequireSecondFactorForSupport makes support staff enrol a second
	// factor at their next sign-in (--require-2fa-support).
	RequireSecondFactorForSupport bool
	// WebhookAllowPrivate accepts webhook URLs on private, loopback and
	// link-local hosts and plain http (development and tests).
	WebhookAllowPrivate bool
	// WebhookEndpointConcurrency caps the deliveries in flight to one
	// endpoint, across dispatchers; 0 means the default.
	WebhookEndpointConcurrency int
	// WebhookAccountConcurrency caps the deliveries in flight to all of
	// one account's endpoints together, across dispatchers; 0 means the
	// default.
	WebhookAccountConcurrency int
	// WebhookSecretGrace is how long a rotated-away signing secret keeps
	// signing beside the new one; 0 means DefaultWebhookSecretGrace.
	WebhookSecretGrace time.Duration
}

// DefaultConfig is what `cloudplane serve` uses without flags.
func DefaultConfig() Config {
	return Config{
		InstanceBootTime:       30 * time.Second,
		InstanceTerminateTime:  10 * time.Second,
		DefaultFilesystemQuota: 25,
		DefaultRulesetQuota:    50,
		PasswordCost:           12,
		SessionIdleTimeout:     12 * time.Hour,
		SessionMaxAge:          7 * 24 * time.Hour,

		RequireSecondFactorForSupport: true,

		WebhookEndpointConcurrency: DefaultWebhookEndpointConcurrency,

		DefaultFabricPartitionQuota: 10,
	}
}

// Store owns the database and every domain operation. Both front doors
// (handlers/api and handlers/web) call its methods; nothing else writes.
type Store struct {
	// db is the storage engine's handle: writes go through db.Write (on
	// SQLite, in turn on its one write connection), reads through db.Read.
	db   *database.DB
	now  Clock
	cfg  Config
	keys *keyCache
	// secrets caches server-wide secrets by name (cachedSecret).
	secrets sync.Map
	// passwords bounds the bcrypt work running at once (password.go).
	passwords *passwordSlots
	// dummyHash is checked against when a sign-in names no user, so that
	// an unknown email costs as much time as a wrong password.
	dummyHash func() []byte
	// filesystems caches each account's filesystem list (accountCache).
	filesystems *accountCache[FilesystemView]
	// rulesets caches each account's firewall ruleset list (accountCache,
	// until an instance's terminating ends: rulesetListExpiry).
	rulesets *accountCache[FirewallRulesetView]
	// instances caches each account's instance list (InstancesEncoded,
	// until a status ends: instanceListExpiry).
	instances *accountCache[InstanceDetail]
	// ticketPages caches owners' encoded ticket pages (pageCache).
	ticketPages *pageCache
	// comments caches tickets' comments (commentCache).
	comments *commentCache
	// ticketFragments caches tickets' encodings (ticketFragments).
	ticketFragments *ticketFragments
	// wake is called after a transaction that wrote outbox rows commits, so
	// the webhook dispatcher starts at once instead of at its next poll.
	wake func()
	// mailWake is called after a transaction that queued mail commits
	// (OnMail).
	mailWake atomic.Pointer[func()]
	// webhookGuard judges webhook destinations when a URL is saved
	// (WithWebhookGuard).
	webhookGuard WebhookGuard
	// chunkReads bounds the attachment chunks read at once
	// (AttachmentBody): a slot is a value sent, given back by receiving.
	chunkReads chan struct{}
	// sweepLimit bounds one page of a notification sweep (defaultSweepLimit).
	sweepLimit int
	// versions coalesces concurrent reads of account versions
	// (account_version_batch.go).
	versions versionReads
	// versionMemo spares them while nothing commits (SQLite,
	// account_version_memo.go).
	versionMemo versionMemo
}

// Option changes a Store at construction.
type Option func(*Store)

// WithClock injects the clock (tests).
func WithClock(c Clock) Option { return func(s *Store) { s.now = c } }

// WithConfig sets the operator configuration.
func WithConfig(c Config) Option { return func(s *Store) { s.cfg = c } }

// WithWebhookGuard sets the check of webhook destinations made when a URL
// is saved. Without one, the store refuses every webhook URL.
func WithWebhookGuard(g WebhookGuard) Option { return func(s *Store) { s.webhookGuard = g } }

// NewStore wraps an open, migrated database. The store owns it from then
// on: Close closes it.
func NewStore(db *database.DB, opts ...Option) *Store {
	s := &Store{db: db, now: SystemClock, cfg: DefaultConfig(), wake: func() {}, webhookGuard: noWebhookGuard{},
		chunkReads: make(chan struct{}, chunkReadsAtOnce), sweepLimit: defaultSweepLimit}
	for _, o := range opts {
		o(s)
	}
	def := DefaultConfig()
	if s.cfg.PasswordCost == 0 {
		s.cfg.PasswordCost = def.PasswordCost
	}
	if s.cfg.SessionIdleTimeout == 0 {
		s.cfg.SessionIdleTimeout = def.SessionIdleTimeout
	}
	if s.cfg.AttachmentCountQuota == 0 {
		s.cfg.AttachmentCountQuota = DefaultAttachmentCountQuota
	}
	if s.cfg.AttachmentBytesQuota == 0 {
		s.cfg.AttachmentBytesQuota = DefaultAttachmentBytesQuota
	}
	if s.cfg.SessionMaxAge == 0 {
		s.cfg.SessionMaxAge = def.SessionMaxAge
	}
	s.keys = newKeyCache(s.now)
	s.dummyHash = dummyHashOnce(s.cfg.PasswordCost)
	s.passwords = newPasswordSlots(s.cfg)
	s.filesystems = newAccountCache[FilesystemView]()
	s.rulesets = newExpiringAccountCache(rulesetListExpiry)
	s.instances = newExpiringAccountCache(instanceListExpiry)
	s.ticketPages = newPageCache(maxCachedPageBytes)
	s.comments = newCommentCache(maxCachedCommentBytes)
	s.ticketFragments = newTicketFragments(maxCachedFragmentBytes)
	return s
}

// OnOutbox registers the function called after outbox rows commit.
func (s *Store) OnOutbox(wake func()) { s.wake = wake }

// DB exposes the read pool's handle for wiring (webhooks, health checks)
// and tests. Handlers must not use it.
func (s *Store) DB() *gorm.DB { return s.db.Gorm() }

// Database is the storage engine's handle (writer statistics, migration
// status).
func (s *Store) Database() *database.DB { return s.db }

// Now is the store's clock, normalised for storage.
func (s *Store) Now() time.Time { return dbTime(s.now()) }

// InstanceBootTime is how long a launched or restarted instance boots
// (Config.InstanceBootTime), for pages that say how long to wait.
func (s *Store) InstanceBootTime() time.Duration { return s.cfg.InstanceBootTime }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.Ping(ctx) }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// PendingMigrations lists the migrations this binary knows that the
// database has not applied yet, in order: a replica started before
// `cloudplane migrate` ran is not ready to serve.
func (s *Store) PendingMigrations(ctx context.Context) ([]string, error) {
	return s.db.PendingMigrations(ctx)
}

// write runs fn in one transaction and translates storage errors into
// coded ones, so that no handler ever sees a driver error. Every write goes
// through it (PostgreSQL's folded creates through writeError), so that
// SQLite's writes wait their turn; a write whose
// context ends while it waits returns the context's error.
//
// fn must use only tx: a read through s.read inside it would hold one
// connection while waiting for another, and a nested write would wait for
// itself. TestManyClientsOnASmallPoolAllFinish catches both. fn may run
// more than once (database.DB.Write), so it only assigns what it leaves
// outside tx.
func (s *Store) write(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return s.writeError(ctx, s.db.Write(ctx, fn))
}

// writeError is what write makes of a write's error.
func (s *Store) writeError(ctx context.Context, err error) error {
	if _, domain := AsError(err); err != nil && !domain && !s.db.IsSQLite() && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// A statement of fn failed as the context ended (pgx reports only
		// "conn closed"); the caller's context is the cause.
		err = fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return translate(err)
}

// read returns a session for queries outside a transaction. Nothing
// writes through it. Inside readTogether it is the connection held.
func (s *Store) read(ctx context.Context) *gorm.DB { return s.db.Read(ctx) }

// readTogether runs fn's reads on one connection of the pool, where that
// finds pages cached (database.DB.ReadTogether).
func (s *Store) readTogether(ctx context.Context, fn func(ctx context.Context) error) error {
	return s.db.ReadTogether(ctx, fn)
}

// translate maps storage failures to coded errors. Domain errors pass
// through; anything else stays uncoded and is answered as internal.
func translate(err error) error {
	if err == nil {
		return nil
	}
	var lost *database.BatchLostError
	if errors.As(err, &lost) {
		return &Error{Code: CodeInternal, Retryable: true, cause: lost.Cause,
			Message:    "A change committed together with this one failed the transaction",
			Suggestion: "Retry the request"}
	}
	if _, ok := AsError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return &Error{Code: CodeDuplicate, Message: "An object with that name already exists"}
	case database.IsUnavailable(err):
		return Unavailable(err)
	case database.IsBusy(err):
		return Busy(err)
	case database.IsConflict(err):
		return &Error{Code: CodeInternal, Retryable: true,
			Message:    "A concurrent request changed the same objects",
			Suggestion: "Retry the request"}
	}
	return fmt.Errorf("storage: %w", err)
}

// lockAccount serialises writes within one account for the rest of the
// transaction, so count-then-insert quota checks hold under concurrency.
// PostgreSQL takes a row lock; SQLite already holds the database write
// lock from BEGIN IMMEDIATE and the driver drops the FOR UPDATE clause.
func lockAccount(tx *gorm.DB, accountID string) (*Account, error) {
	var a Account
	err := tx.Clauses(forUpdate).Where("id = ?", accountID).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, NotFound("account", accountID)
	}
	return &a, err
}

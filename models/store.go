package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
	"gorm.io/gorm"
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
	// WebhookResolver looks up a webhook's host when its URL is saved;
	// nil means the system's.
	WebhookResolver Resolver
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

		WebhookEndpointConcurrency: DefaultWebhookEndpointConcurrency,

		DefaultFabricPartitionQuota: 10,
	}
}

// Store owns the database and every domain operation. Both front doors
// (handlers/api and handlers/web) call its methods; nothing else writes.
type Store struct {
	db *gorm.DB
	// writer, on SQLite, is the one connection writes go through, in turn.
	// PostgreSQL has none: its writers run side by side, kept apart by row
	// locks and constraints, which also hold between replicas.
	writer *sqliteWriter
	now    Clock
	cfg    Config
	keys   *keyCache
	// secrets caches server-wide secrets by name (cachedSecret).
	secrets sync.Map
	// passwords bounds the bcrypt work running at once (password.go).
	passwords *passwordSlots
	// dummyHash is checked against when a sign-in names no user, so that
	// an unknown email costs as much time as a wrong password.
	dummyHash func() []byte
	// stmts holds the prepared statements of the hottest reads.
	stmts *statements
	// filesystems caches each account's filesystem list (accountCache).
	filesystems *accountCache[FilesystemView]
	// wake is called after a transaction that wrote outbox rows commits, so
	// the webhook dispatcher starts at once instead of at its next poll.
	wake func()
	// chunkReads bounds the attachment chunks read at once (AttachmentBody).
	chunkReads *semaphore.Weighted
}

// Option changes a Store at construction.
type Option func(*Store)

// WithClock injects the clock (tests).
func WithClock(c Clock) Option { return func(s *Store) { s.now = c } }

// WithConfig sets the operator configuration.
func WithConfig(c Config) Option { return func(s *Store) { s.cfg = c } }

// NewStore wraps an open, migrated database.
func NewStore(db *gorm.DB, opts ...Option) *Store {
	s := &Store{db: db, writer: writerOf(db), now: SystemClock, cfg: DefaultConfig(), wake: func() {},
		chunkReads: semaphore.NewWeighted(chunkReadsAtOnce)}
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
	sqlDB, _ := db.DB() // fails only for a pool that is no *sql.DB, which Open never makes
	s.stmts = newStatements(sqlDB)
	s.filesystems = newAccountCache[FilesystemView]()
	return s
}

// OnOutbox registers the function called after outbox rows commit.
func (s *Store) OnOutbox(wake func()) { s.wake = wake }

// DB exposes the handle for wiring (migrations, webhooks, health checks).
// Handlers must not use it.
func (s *Store) DB() *gorm.DB { return s.db }

// Now is the store's clock, normalised for storage.
func (s *Store) Now() time.Time { return dbTime(s.now()) }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}

// Close closes the database.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	s.stmts.close()
	if s.writer != nil {
		_ = s.writer.close()
	}
	return sqlDB.Close()
}

// write runs fn in one transaction and translates storage errors into
// coded ones, so that no handler ever sees a driver error. Every write goes
// through it, so that SQLite's writes wait their turn (sqliteWriter); a
// write whose context ends while it waits returns the context's error.
//
// fn must use only tx: a read through s.read inside it would hold one
// connection while waiting for another, and a nested write would wait for
// itself. TestManyClientsOnASmallPoolAllFinish catches both. fn may run
// more than once (on PostgreSQL, again on a fresh connection when the
// pooled one was dead), so it only assigns what it leaves outside tx.
func (s *Store) write(ctx context.Context, fn func(tx *gorm.DB) error) error {
	if s.writer != nil {
		return translate(s.writer.run(ctx, fn))
	}
	err := s.db.WithContext(ctx).Transaction(fn)
	// A pooled connection that turns out dead (pgx closes one whose
	// context ended mid-query; database/sql may hand it out once more)
	// is not the caller's failure. ErrBadConn promises nothing was sent,
	// so the transaction runs again on another connection.
	for retry := 0; retry < 2 && errors.Is(err, driver.ErrBadConn) && ctx.Err() == nil; retry++ {
		err = s.db.WithContext(ctx).Transaction(fn)
	}
	if _, domain := AsError(err); err != nil && !domain && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// pgx may close the connection when the context ends mid-COMMIT
		// and report only "conn closed"; the caller's context is the cause.
		err = fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return translate(err)
}

// read returns a session for queries outside a transaction. Nothing
// writes through it. Inside readTogether it is the connection held.
func (s *Store) read(ctx context.Context) *gorm.DB {
	if conn, ok := ctx.Value(heldReadsKey{}).(*gorm.DB); ok {
		return conn.WithContext(ctx)
	}
	return s.db.WithContext(ctx)
}

type heldReadsKey struct{}

// readTogether runs fn's reads on one connection of the pool. On SQLite a
// connection keeps its page cache from one statement to the next unless a
// write commits in between, while a statement on another connection of
// the pool starts cold: reads that pass over the same rows (the ticket
// list counts comments, then reads them) find them cached. PostgreSQL
// caches for every connection, so there fn runs as it is: holding a
// connection while a write inside fn waits for another (a secret made on
// first use) is how pools deadlock. SQLite's writes never take one from
// the readers' pool.
func (s *Store) readTogether(ctx context.Context, fn func(ctx context.Context) error) error {
	if s.writer == nil {
		return fn(ctx)
	}
	return s.db.WithContext(ctx).Connection(func(conn *gorm.DB) error {
		return fn(context.WithValue(ctx, heldReadsKey{}, conn))
	})
}

// translate maps storage failures to coded errors. Domain errors pass
// through; anything else stays uncoded and is answered as internal.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := AsError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return &Error{Code: CodeDuplicate, Message: "An object with that name already exists"}
	case isUnavailable(err):
		return Unavailable(err)
	case isConflict(err):
		return &Error{Code: CodeInternal, Retryable: true,
			Message:    "A concurrent request changed the same objects",
			Suggestion: "Retry the request"}
	}
	return fmt.Errorf("storage: %w", err)
}

// isConflict recognises lost races that a retry can win: SQLite's busy
// timeout running out, PostgreSQL serialization failures and deadlocks.
func isConflict(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "database is locked") ||
		strings.Contains(msg, "SQLSTATE 40001") ||
		strings.Contains(msg, "SQLSTATE 40P01")
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

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/ratelimit"
	"cloudplane/models"
)

// shutdownGrace bounds how long in-flight requests may run after SIGTERM.
const shutdownGrace = 20 * time.Second

type serveFlags struct {
	addr, database, logLevel, redisURL string
	debugAddr                          string
	rateLimit, launchRateLimit         string
	capacity                           string
	rateBurst                          int
	bootTime                           time.Duration
}

func serve(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("serve")
	var f serveFlags
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&f.database, "database", models.DefaultDatabase, "SQLite file path, or a postgres:// URL")
	fs.StringVar(&f.rateLimit, "rate-limit", "1/s", "API requests per account, as N/period, or off")
	fs.IntVar(&f.rateBurst, "rate-burst", 5, "requests an account may make at once above the rate")
	fs.StringVar(&f.launchRateLimit, "launch-rate-limit", "1/12s", "instance launches per account, as N/period, or off")
	fs.StringVar(&f.redisURL, "redis-url", "", "share rate limits between replicas through this Redis (redis://...)")
	fs.DurationVar(&f.bootTime, "instance-boot-time", 30*time.Second, "how long a simulated instance boots")
	fs.StringVar(&f.capacity, "instance-capacity", "", "instances that can run at once, as type:region=count,... "+
		"(e.g. gpu_1x_a10:us-east-1=4,gpu_8x_h100_sxm5:us-west-1=1); replaces the built-in default, "+
		"so pairs not listed have none")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.debugAddr, "debug-addr", "", "serve net/http/pprof and /debug/vars on this separate address (e.g. 127.0.0.1:6060); off when empty")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log, err := newLogger(f.logLevel)
	if err != nil {
		return err
	}
	limits, err := buildLimits(f)
	if err != nil {
		return err
	}
	capacity, err := models.ParseCapacity(f.capacity)
	if err != nil {
		return fmt.Errorf("--instance-capacity: %w", err)
	}

	db, err := models.Open(ctx, f.database)
	if err != nil {
		return err
	}
	if err := models.Migrate(ctx, db); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	cfg := models.DefaultConfig()
	cfg.InstanceBootTime = f.bootTime
	cfg.Capacity = capacity
	store := models.NewStore(db, models.WithConfig(cfg))
	defer store.Close()

	app := handlers.New(handlers.Config{Store: store, Log: log, Limits: limits})
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	if f.debugAddr != "" {
		sqlDB, err := db.DB()
		if err != nil {
			_ = ln.Close()
			return err
		}
		dln, err := net.Listen("tcp", f.debugAddr)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("--debug-addr: %w", err)
		}
		defer serveDebug(dln, sqlDB, log).Close()
	}
	log.Info("cloudplane listening", "addr", "http://"+ln.Addr().String(), "database", redactDSN(f.database))
	served := make(chan error, 1)
	go func() { served <- app.Listener(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down; draining in-flight requests")
	if err := app.ShutdownWithTimeout(shutdownGrace); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

func buildLimits(f serveFlags) (api.Limits, error) {
	var redisClient *redis.Client
	if f.redisURL != "" {
		opts, err := redis.ParseURL(f.redisURL)
		if err != nil {
			return api.Limits{}, fmt.Errorf("--redis-url: %w", err)
		}
		redisClient = redis.NewClient(opts)
	}
	build := func(flag, spec string, burst int, prefix string) (ratelimit.Limiter, error) {
		q, enabled, err := ratelimit.ParseQuota(spec, burst)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", flag, err)
		}
		if !enabled {
			return nil, nil
		}
		if redisClient != nil {
			return ratelimit.NewRedis(redisClient, "cloudplane:rl:"+prefix+":", q)
		}
		return ratelimit.NewMemory(q)
	}
	var l api.Limits
	var err error
	if l.General, err = build("rate-limit", f.rateLimit, f.rateBurst, "api"); err != nil {
		return l, err
	}
	if l.Launch, err = build("launch-rate-limit", f.launchRateLimit, 1, "launch"); err != nil {
		return l, err
	}
	// Failed authentications: a client that keeps guessing is slowed to the
	// general rate, even when the general limit is off for benchmarks.
	l.Unauthenticated, err = build("rate-limit", "5/s", 10, "auth")
	return l, err
}

func newLogger(level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv})), nil
}

// redactDSN hides a password in a database URL before it is logged.
func redactDSN(dsn string) string {
	if !models.IsPostgres(dsn) {
		return dsn
	}
	if u, err := parseURL(dsn); err == nil {
		return u.Redacted()
	}
	return "postgres://…"
}

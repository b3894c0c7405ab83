package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/metrics"
	"cloudplane/handlers/observe"
	"cloudplane/handlers/ratelimit"
	"cloudplane/handlers/web"
	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/webhooks"
	"cloudplane/webhooks/netguard"
)

type serveFlags struct {
	addr, baseURL, database, logLevel string
	trustedProxies, proxyHeader       string
	redisURL, debugAddr               string
	rateLimit, launchRateLimit        string
	uploadBudget                      string
	capacity                          string
	rateBurst                         int
	bootTime                          time.Duration
	require2FASupport                 bool

	webhooks webhookFlags
	mail     mailFlags
	backups  backupFlags
	limits   limitFlags
	observe  observeFlags
	sso      ssoFlags
}

func serve(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("serve")
	var f serveFlags
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&f.baseURL, "base-url", "", "public URL of the dashboard, for the printed setup link and links in mail (default http://<addr>)")
	fs.StringVar(&f.database, "database", database.DefaultPath, "SQLite file path, or a postgres:// URL")
	fs.StringVar(&f.rateLimit, "rate-limit", "1/s", "API requests per account, as N/period, or off")
	fs.IntVar(&f.rateBurst, "rate-burst", 5, "requests an account may make at once above the rate")
	fs.StringVar(&f.launchRateLimit, "launch-rate-limit", "1/12s", "instance launches per account, as N/period, or off")
	fs.StringVar(&f.uploadBudget, "upload-budget", defaultUploadBudget,
		"MiB of attachment uploads per account, as N/period (N at once, then refilled over the period), or off")
	fs.StringVar(&f.redisURL, "redis-url", "", "share rate limits between replicas through this Redis (redis://...)")
	fs.DurationVar(&f.bootTime, "instance-boot-time", 30*time.Second, "how long a simulated instance boots")
	fs.StringVar(&f.capacity, "instance-capacity", "", "instances that can run at once, as type:region=count,... "+
		"(e.g. gpu_1x_a10:us-east-1=4,gpu_8x_h100_sxm5:us-west-1=1); replaces the built-in default, "+
		"so pairs not listed have none")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.trustedProxies, "trusted-proxies", "", "comma-separated addresses or CIDR blocks of reverse proxies allowed to name the client")
	fs.StringVar(&f.proxyHeader, "proxy-header", "X-Real-IP", "header in which a trusted proxy names the client address")
	fs.BoolVar(&f.require2FASupport, "require-2fa-support", true, "require support staff to sign in with a second factor (they enrol one at their next sign-in)")
	f.webhooks.register(fs)
	f.mail.register(fs)
	f.backups.register(fs)
	f.limits.register(fs)
	f.observe.register(fs)
	f.sso.register(fs)
	fs.StringVar(&f.debugAddr, "debug-addr", "", "serve net/http/pprof and /debug/vars on this separate address (e.g. 127.0.0.1:6060); off when empty")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.limits.validate(); err != nil {
		return err
	}
	maxConns, err := connectionCap(f.limits.maxConns)
	if err != nil {
		return err
	}
	dispatch, err := f.webhooks.config()
	if err != nil {
		return err
	}
	if err := f.backups.check(f.database); err != nil {
		return err
	}
	dispatch.ShutdownGrace = min(webhooks.DefaultShutdownGrace, f.limits.drainPeriod())
	// Access lines are written in batches; Close writes the last batch
	// once the server has stopped.
	logOut := observe.NewLogWriter(os.Stderr, observe.DefaultLogBuffer, observe.DefaultLogFlush)
	defer logOut.Close()
	log, err := observe.NewLogger(logOut, f.observe.logFormat, f.logLevel)
	if err != nil {
		return err
	}
	mailSender, err := f.mail.sender(log)
	if err != nil {
		return err
	}
	build := readBuild()
	meters := f.observe.newMetrics(build)
	rdb, err := openRedis(f.redisURL)
	if err != nil {
		return err
	}
	limits, signIn, err := buildLimits(f, rdb, meters)
	if err != nil {
		return err
	}
	sso, err := f.sso.sso(f.baseURL, log)
	if err != nil {
		return err
	}
	capacity, err := models.ParseCapacity(f.capacity)
	if err != nil {
		return fmt.Errorf("--instance-capacity: %w", err)
	}

	db, err := openMigrated(ctx, f.database)
	if err != nil {
		return err
	}
	db.FillPool(ctx)
	cfg := models.DefaultConfig()
	cfg.InstanceBootTime = f.bootTime
	cfg.Capacity = capacity
	cfg.WebhookAllowPrivate = dispatch.AllowPrivate
	cfg.WebhookEndpointConcurrency = f.webhooks.perEndpoint
	cfg.WebhookAccountConcurrency = f.webhooks.perAccount
	cfg.WebhookSecretGrace = f.webhooks.secretGrace
	cfg.RequireSecondFactorForSupport = f.require2FASupport
	store := models.NewStore(db, models.WithConfig(cfg), models.WithWebhookGuard(netguard.Guard{}))
	dispatch.Log, dispatch.Metrics = log, meters
	if err := watchStore(meters, store); err != nil {
		_ = store.Close()
		return err
	}
	stopWebhooks := startWebhooks(store, dispatch, f.webhooks.retention)
	var backupOutcome func(time.Time, error)
	if f.backups.dir != "" {
		backupOutcome = meters.WatchBackups()
	}
	stopBackups := f.backups.start(db, log, time.Now, backupOutcome)
	stopPruning := startIdempotencyPruning(store, log)
	stopSweep := startNotificationSweep(store, log)
	stopBudgets := startBudgetSweep(store, log)
	stopMail := func() {} // started once the address, and so the base URL, is known
	stopBackground := func() { stopTogether(stopMail, stopBackups, stopWebhooks, stopPruning, stopSweep, stopBudgets) }
	// On a failed start the dispatcher and backups stop, then the database
	// closes; after a signal, shutdown does it within its timeout instead.
	shuttingDown := false
	defer func() {
		if !shuttingDown {
			stopBackground()
			_ = store.Close()
		}
	}()
	requestsCtx, stopRequests := context.WithCancel(context.Background())
	defer stopRequests()

	proxies, err := parseProxies(f.trustedProxies)
	if err != nil {
		return err
	}
	// Listening first: without --base-url, the public URL (for mail links
	// and the passkeys' relying party) is the listener's address.
	ln, err := listen(f.addr, maxConns, log)
	if err != nil {
		return err
	}
	ln = handlers.LingerOnRefusal(handlers.LimitPerAddress(ln, f.limits.maxConnsPerIP))
	rp, err := models.NewRelyingParty(publicURL(f.baseURL, ln.Addr().String()))
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("--base-url: %w", err)
	}
	app := handlers.New(handlers.Config{Store: store, Log: log, Limits: limits, SignIn: signIn,
		TrustedProxies: proxies, ProxyHeader: f.proxyHeader, Metrics: meters, NoAccessLog: !f.observe.accessLog, Dependencies: dependencies(rdb),
		RequestTimeout: f.limits.requestTimeout, Stopping: requestsCtx, MaxInFlight: f.limits.maxInFlight, MaxUploads: f.limits.maxUploads,
		UploadProgressTimeout: f.limits.uploadProgressTimeout,
		ReadTimeout:           f.limits.readTimeout, IdleTimeout: f.limits.idleTimeout,
		MailLinksOnPage: f.mail.smtpURL == "", RelyingParty: rp, SSO: sso})
	stopMail = startMail(store, mailSender, f.mail, f.limits.shutdownTimeout, publicURL(f.baseURL, ln.Addr().String()), log)
	if sso != nil {
		sso.SetBaseURL(publicURL(f.baseURL, ln.Addr().String()))
		go sso.Warm(requestsCtx)
	}
	if f.debugAddr != "" {
		sqlDB, err := db.Gorm().DB()
		if err != nil {
			_ = ln.Close()
			return err
		}
		dln, err := net.Listen("tcp", f.debugAddr)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("--debug-addr: %w", err)
		}
		defer serveDebug(dln, sqlDB, db.WriterStats, log).Close()
	}
	stopMetrics, err := startMetrics(f.observe, meters, log)
	if err != nil {
		_ = ln.Close()
		return err
	}
	defer stopMetrics()
	log.Info("cloudplane listening", "addr", "http://"+ln.Addr().String(), "database", redactDSN(f.database),
		"max_connections", maxConns, "version", build.Version, "commit", build.commit())
	if err := announceSetup(ctx, store, log, f.baseURL, ln.Addr().String()); err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- app.Listener(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down; draining in-flight requests", "timeout", f.limits.shutdownTimeout)
	shuttingDown = true
	return shutdown(app, stopping{requests: stopRequests, webhooks: stopBackground, database: store.Close,
		timeout: f.limits.shutdownTimeout, drain: f.limits.drainPeriod(), log: log})
}

// publicURL is --base-url, or the listener's address when it is not set.
func publicURL(baseURL, addr string) string {
	if baseURL == "" {
		return "http://" + addr
	}
	return baseURL
}

// announceSetup prints the one-time setup link while no user exists, so
// whoever started the server can create the first owner in the browser.
func announceSetup(ctx context.Context, store *models.Store, log *slog.Logger, baseURL, addr string) error {
	token, err := store.StartSetup(ctx)
	if err != nil || token == "" {
		return err
	}
	baseURL = publicURL(baseURL, addr)
	log.Warn("no user exists yet: open the setup link to create the first owner (it works once)",
		"url", strings.TrimSuffix(baseURL, "/")+"/setup/"+token)
	return nil
}

// Dashboard password attempts (sign-in, setup, change of password): one
// address may try an account 5 times at once, then once per 12 s; an
// account may be tried 20 times at once, then once per 3 s, from all
// addresses together, so a guesser must spread over 4 or more addresses
// to lock the owner out; one address may make 20 attempts at once, then
// one per 3 s (offices share addresses). A browser that signed in to
// the account before (its device cookie) is held to none of these but to
// its own 5 at once, then one per 12 s, and the account's known browsers
// together to 20 at once, then one per 3 s, so strangers who spend the
// account's budget do not lock out its owner.
const (
	signInPerAccountAddress      = "5/1m"
	signInPerAccount             = "20/1m"
	signInPerAddress             = "20/1m"
	signInPerDevice              = "5/1m"
	signInKnownDevicesPerAccount = "20/1m"
)

// "Forgot your password?": one email may be sent 3 links at once, then
// one per 20 minutes; one address may ask 10 times at once, then once per
// 6 minutes, so the form floods neither a mailbox nor the outbox.
const (
	resetPerEmail   = "3/1h"
	resetPerAddress = "10/1h"
)

// Dashboard writes per account: 10 at once, then one per 2 s. A person
// clicking rarely makes more than a few changes in a row and never 30 a
// minute for long, while a script driving the forms is held to about the
// API's pace. --rate-limit off lifts it with the API's limit.
const (
	dashboardWrites     = "30/1m"
	dashboardWriteBurst = 10
)

// buildLimits makes the limiters, shared through redisClient when it is
// set; each counts its refusals in m under its prefix.
func buildLimits(f serveFlags, redisClient *redis.Client, m *metrics.Metrics) (api.Limits, web.Limits, error) {
	build := func(flag, spec string, burst int, prefix string) (ratelimit.Limiter, error) {
		q, enabled, err := ratelimit.ParseQuota(spec, burst)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", flag, err)
		}
		if !enabled {
			return nil, nil
		}
		var l ratelimit.Limiter
		if redisClient != nil {
			l, err = ratelimit.NewRedis(redisClient, "cloudplane:rl:"+prefix+":", q)
		} else {
			l, err = ratelimit.NewMemory(q)
		}
		if err != nil {
			return nil, err
		}
		return ratelimit.Observed(l, m.RateLimitRejected(prefix)), nil
	}
	var l api.Limits
	var w web.Limits
	var err error
	if l.General, err = build("rate-limit", f.rateLimit, f.rateBurst, "api"); err != nil {
		return l, w, err
	}
	if l.Launch, err = build("launch-rate-limit", f.launchRateLimit, 1, "launch"); err != nil {
		return l, w, err
	}
	// Failed authentications: a client that keeps guessing is slowed to the
	// general rate, even when the general limit is off for benchmarks.
	if l.Unauthenticated, err = build("rate-limit", "5/s", 10, "auth"); err != nil {
		return l, w, err
	}
	if w.SignInPerAccountAddress, err = build("sign-in", signInPerAccountAddress, 5, "signin-pair"); err != nil {
		return l, w, err
	}
	if w.SignInPerAccount, err = build("sign-in", signInPerAccount, 20, "signin-account"); err != nil {
		return l, w, err
	}
	if w.SignInPerAddress, err = build("sign-in", signInPerAddress, 20, "signin-address"); err != nil {
		return l, w, err
	}
	if w.SignInPerDevice, err = build("sign-in", signInPerDevice, 5, "signin-device"); err != nil {
		return l, w, err
	}
	if w.SignInKnownDevicesPerAccount, err = build("sign-in", signInKnownDevicesPerAccount, 20, "signin-known-devices"); err != nil {
		return l, w, err
	}
	if w.ResetPerEmail, err = build("sign-in", resetPerEmail, 3, "reset-email"); err != nil {
		return l, w, err
	}
	if w.ResetPerAddress, err = build("sign-in", resetPerAddress, 10, "reset-address"); err != nil {
		return l, w, err
	}
	if l.General != nil {
		w.Writes, err = build("rate-limit", dashboardWrites, dashboardWriteBurst, "web-writes")
	}
	if err == nil {
		l.UploadMiB, err = uploadBudget(f.uploadBudget, redisClient)
	}
	return l, w, err
}

// defaultUploadBudget lets an account send its whole attachment quota
// (1 GiB) at once, then 1 GiB an hour: far more than people attaching
// logs send, and a ceiling on what a script re-uploading can make the
// server write.
const defaultUploadBudget = "1024/1h"

// uploadBudget reads --upload-budget: N MiB, refilled over the period.
func uploadBudget(spec string, redisClient *redis.Client) (ratelimit.Budget, error) {
	n, _, _ := strings.Cut(spec, "/")
	burst, err := strconv.Atoi(n)
	if !strings.EqualFold(strings.TrimSpace(spec), "off") && (err != nil || burst < models.MaxAttachmentSize>>20) {
		return nil, fmt.Errorf("--upload-budget: %q: want N/period with N at least %d (one largest attachment), or off", spec, models.MaxAttachmentSize>>20)
	}
	q, enabled, err := ratelimit.ParseQuota(spec, burst)
	if err != nil {
		return nil, fmt.Errorf("--upload-budget: %w", err)
	}
	if !enabled {
		return nil, nil
	}
	if redisClient != nil {
		return ratelimit.NewRedisBudget(redisClient, "cloudplane:rl:upload:", q)
	}
	return ratelimit.NewMemoryBudget(q)
}

// redactDSN hides a password in a database URL before it is logged.
func redactDSN(dsn string) string {
	if !database.IsPostgres(dsn) {
		return dsn
	}
	if u, err := parseURL(dsn); err == nil {
		return u.Redacted()
	}
	return "postgres://…"
}

// parseProxies reads --trusted-proxies, refusing anything that is not an
// address or CIDR block so a typo cannot silently trust nobody (or all).
func parseProxies(list string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, err := netip.ParsePrefix(p); err != nil {
			if _, err := netip.ParseAddr(p); err != nil {
				return nil, fmt.Errorf("--trusted-proxies: %q is not an address or CIDR block", p)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

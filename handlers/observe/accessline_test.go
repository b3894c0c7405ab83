package observe

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"cloudplane/handlers/metrics"
)

// The access line the middleware encodes itself is, byte for byte, the
// line slog writes for the same record, in both formats: tools reading
// the log see no difference.
func TestAccessLineIsSlogsLine(t *testing.T) {
	at := time.Date(2026, 11, 26, 22, 30, 1, 123456789, time.FixedZone("X", 3600))
	lines := []accessLine{
		{method: "GET", path: "/api/v1/filesystems", route: "/api/v1/filesystems", status: 200,
			took: 1234567 * time.Nanosecond, bytes: 2846, client: netip.MustParseAddr("127.0.0.1"), account: "acc-1", requestID: "req-1"},
		{method: "DELETE", path: "/a b=c\"d\\e\tf\x01g", route: "unmatched", status: 404,
			took: 0, bytes: 0, client: netip.MustParseAddr("::1"), requestID: "r"},
		{method: "POST", path: "/é/\u2028/\xff/ü", route: "/api/v1", status: 500,
			took: 3 * time.Second, bytes: 1, client: netip.MustParseAddr("0.0.0.0")},
		{method: "GET", path: "", route: "/", status: 200, took: 999 * time.Nanosecond, client: netip.MustParseAddr("10.0.0.1"), account: "x y"},
		{method: "GET", path: "/long", route: "/long", status: 200, took: 1000 * time.Second, client: netip.MustParseAddr("10.0.0.1")},
		{method: "GET", path: "/longer", route: "/longer", status: 200, took: 1000 * time.Hour, clientName: "203.0.113.9"},
		{method: "GET", path: "/p", route: "/p", status: 200, took: 50 * time.Microsecond, clientName: "a \"proxy\" name"},
		{method: "GET", path: "/z", route: "/z", status: 200, took: 1500 * time.Microsecond,
			client: netip.MustParseAddr("fe80::1%eth0")},
		{method: "GET", path: "/z", route: "/z", status: 200, took: time.Microsecond,
			client: netip.MustParseAddr("fe80::1%a b=\"c")},
	}
	for _, format := range []string{"text", "json"} {
		for _, a := range lines {
			var want bytes.Buffer
			log, err := NewLogger(&want, format, "info")
			if err != nil {
				t.Fatal(err)
			}
			r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
			r.AddAttrs(slog.String("method", a.method), slog.String("path", a.path), slog.String("route", a.route),
				slog.Int("status", a.status), slog.Float64("duration_ms", float64(a.took.Microseconds())/1000),
				slog.Int("bytes", a.bytes), slog.String("client", a.clientText()))
			if a.account != "" {
				r.AddAttrs(slog.String("account_id", a.account))
			}
			ctx := context.Background()
			if a.requestID != "" {
				ctx = withRequestID(ctx, a.requestID)
			}
			if err := log.Handler().Handle(ctx, r); err != nil {
				t.Fatal(err)
			}
			a.at = at
			if got := a.appendTo(nil, format == "json"); string(got) != want.String() {
				t.Errorf("%s:\n got %q\nwant %q", format, got, want.String())
			}
		}
	}
}

// countingWriter records each Write it is given.
type countingWriter struct{ writes []string }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

// Access lines wait in the LogWriter until it is full, flushed or closed;
// anything else logged is written at once, after the lines before it.
func TestLogWriterBatchesAccessLines(t *testing.T) {
	out := &countingWriter{}
	lw := NewLogWriter(out, 1<<20, time.Hour)
	log, err := NewLogger(lw, "text", "info")
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New()
	app.Use(Middleware(Config{Log: log}))
	app.Get("/x", func(c *fiber.Ctx) error { return c.SendString("ok") })
	for range 3 {
		if _, err := app.Test(httptest.NewRequest("GET", "/x", nil)); err != nil {
			t.Fatal(err)
		}
	}
	if len(out.writes) != 0 {
		t.Fatalf("access lines written before a flush: %q", out.writes)
	}
	log.Warn("something to see now")
	if len(out.writes) != 1 || strings.Count(out.writes[0], "msg=request") != 3 ||
		!strings.HasSuffix(out.writes[0], "level=WARN msg=\"something to see now\"\n") {
		t.Fatalf("a warning was not written at once after the access lines: %q", out.writes)
	}
	if _, err := app.Test(httptest.NewRequest("GET", "/x", nil)); err != nil {
		t.Fatal(err)
	}
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	if len(out.writes) != 2 || !strings.Contains(out.writes[1], "msg=request method=GET path=/x") {
		t.Fatalf("Close did not write the last line: %q", out.writes)
	}
	if _, err := app.Test(httptest.NewRequest("GET", "/x", nil)); err != nil {
		t.Fatal(err)
	}
	if len(out.writes) != 3 {
		t.Fatalf("a line after Close was not written at once: %q", out.writes)
	}
}

// A full buffer is written without waiting for the timer.
func TestLogWriterWritesWhenFull(t *testing.T) {
	out := &countingWriter{}
	lw := NewLogWriter(out, 300, time.Hour)
	defer lw.Close()
	a := accessLine{method: "GET", path: "/x", route: "/x", status: 200, client: netip.MustParseAddr("127.0.0.1"), requestID: "r"}
	for range 10 {
		lw.appendLine(a.appendTo(nil, false))
	}
	if len(out.writes) == 0 {
		t.Fatal("nothing written after 10 lines into a 300-byte buffer")
	}
	for _, w := range out.writes {
		if !strings.HasSuffix(w, "\n") {
			t.Fatalf("a write ends inside a line: %q", w)
		}
	}
}

// --access-log=false: no access line, the rest of the logging unchanged.
func TestNoAccessLog(t *testing.T) {
	var buf bytes.Buffer
	log, err := NewLogger(&buf, "json", "info")
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New()
	app.Use(Middleware(Config{Log: log, NoAccessLog: true}))
	app.Get("/x", func(c *fiber.Ctx) error {
		log.InfoContext(c.UserContext(), "handler ran")
		return c.SendString("ok")
	})
	res, err := app.Test(httptest.NewRequest("GET", "/x", nil))
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Get("X-Request-Id") == "" {
		t.Fatal("no request id")
	}
	if out := buf.String(); strings.Contains(out, `"msg":"request"`) || !strings.Contains(out, `"msg":"handler ran"`) {
		t.Fatalf("log: %s", out)
	}
}

// clientText is the client as c.IP() would name it.
func (a *accessLine) clientText() string {
	if a.client.IsValid() {
		return a.client.String()
	}
	return a.clientName
}

// Below 10^6 ms, appendDurationMS writes what strconv writes for the
// float slog is given, in both formats; from there on it declines.
func TestDurationMSIsSlogsFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(us int64) {
		took := time.Duration(us) * time.Microsecond
		got, ok := appendDurationMS(nil, took)
		if us >= maxDecimalMicros {
			if ok {
				t.Fatalf("%d us: written as %q, not left to strconv", us, got)
			}
			return
		}
		f := float64(us) / 1000
		if !ok || string(got) != strconv.FormatFloat(f, 'g', -1, 64) || string(got) != string(appendJSONFloat(nil, f)) {
			t.Fatalf("%d us: got %q (ok %v), want %q", us, got, ok, strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	for us := int64(0); us < 200_000; us++ {
		check(us)
	}
	for range 200_000 {
		check(rng.Int64N(2 * maxDecimalMicros))
	}
	for _, us := range []int64{maxDecimalMicros - 1, maxDecimalMicros, maxDecimalMicros + 1, 999_999_000} {
		check(us)
	}
}

// Encoding an access line into the LogWriter allocates nothing.
func TestAccessLineAllocatesNothing(t *testing.T) {
	lw := NewLogWriter(io.Discard, DefaultLogBuffer, time.Hour)
	defer lw.Close()
	a := accessLine{at: time.Now(), method: "GET", path: "/api/v1/filesystems", route: "/api/v1/filesystems", status: 200,
		took: time.Millisecond, bytes: 2846, client: netip.MustParseAddr("127.0.0.1"), account: "acc", requestID: "req"}
	for _, json := range []bool{false, true} {
		out := newAccessOutput(lw, json)
		if n := testing.AllocsPerRun(1000, func() { out.write(&a) }); n != 0 {
			t.Errorf("json %v: %v allocations per line", json, n)
		}
	}
}

func BenchmarkAccessLine(b *testing.B) {
	for _, format := range []string{"text", "json"} {
		b.Run(format+"/logwriter", func(b *testing.B) {
			lw := NewLogWriter(io.Discard, DefaultLogBuffer, DefaultLogFlush)
			defer lw.Close()
			a := accessLine{at: time.Now(), method: "GET", path: "/api/v1/filesystems", route: "/api/v1/filesystems",
				status: 200, took: time.Millisecond, bytes: 2846, client: netip.MustParseAddr("127.0.0.1"), account: "acc", requestID: "req"}
			out := newAccessOutput(lw, format == "json")
			b.ReportAllocs()
			for b.Loop() {
				out.write(&a)
			}
		})
		// What the access line cost before: slog's handler, one Write per line.
		b.Run(format+"/slog", func(b *testing.B) {
			log, _ := NewLogger(io.Discard, format, "info")
			ctx := withRequestID(context.Background(), "req")
			b.ReportAllocs()
			for b.Loop() {
				log.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("method", "GET"),
					slog.String("path", "/api/v1/filesystems"), slog.String("route", "/api/v1/filesystems"),
					slog.Int("status", 200), slog.Float64("duration_ms", 1), slog.Int("bytes", 2846),
					slog.String("client", "127.0.0.1"), slog.String("account_id", "acc"))
			}
		})
	}
}

// observedRequest returns a request through the middleware with cfg
// around a handler that answers a list's worth of bytes.
func observedRequest(cfg Config) func() {
	body := bytes.Repeat([]byte("x"), 2846)
	app := fiber.New()
	app.Use(Middleware(cfg))
	app.Get("/api/v1/filesystems", func(c *fiber.Ctx) error {
		SetAccount(c, "acc-0123456789")
		return c.Send(body)
	})
	h := app.Handler()
	var ctx fasthttp.RequestCtx
	return func() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.Header.SetMethod(fasthttp.MethodGet)
		ctx.Request.SetRequestURI("/api/v1/filesystems")
		h(&ctx)
	}
}

// observability is one configuration of the middleware, named.
type observability struct {
	name string
	cfg  Config
}

func observabilityConfigs(tb testing.TB) []observability {
	lw := NewLogWriter(io.Discard, DefaultLogBuffer, DefaultLogFlush)
	tb.Cleanup(func() { _ = lw.Close() })
	log, err := NewLogger(lw, "text", "info")
	if err != nil {
		tb.Fatal(err)
	}
	return []observability{
		{"log+metrics", Config{Log: log, Metrics: metrics.New(metrics.Build{})}},
		{"log", Config{Log: log}},
		{"none", Config{Log: log, NoAccessLog: true}},
	}
}

// The access log adds no allocation to a request: its line is encoded on
// the stack and copied into the LogWriter's batch.
func TestAccessLogAddsNoAllocation(t *testing.T) {
	allocs := map[string]float64{}
	for _, tc := range observabilityConfigs(t) {
		allocs[tc.name] = testing.AllocsPerRun(1000, observedRequest(tc.cfg))
	}
	if allocs["log"] != allocs["none"] {
		t.Fatalf("allocations per request: %v with the access log, %v without", allocs["log"], allocs["none"])
	}
}

// BenchmarkObservability is the middleware alone around a handler that
// answers a list's worth of bytes: with the access log (into a LogWriter)
// and request metrics, with the log alone, and with neither. The
// differences are what observability adds to every request.
func BenchmarkObservability(b *testing.B) {
	for _, tc := range observabilityConfigs(b) {
		b.Run(tc.name, func(b *testing.B) {
			request := observedRequest(tc.cfg)
			b.ReportAllocs()
			for b.Loop() {
				request()
			}
		})
	}
}

// The time of a line is slog's for every time, whichever second and zone
// the line before it was logged in: the formatted second is kept between
// lines and must never leak into another second's or zone's.
func TestAccessLineTimeAcrossSecondsAndZones(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("X", 3600), time.FixedZone("Y", -(9*3600 + 30*60))}
	rng := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2026, 12, 31, 23, 59, 58, 0, time.UTC)
	a := accessLine{method: "GET", path: "/", route: "/", status: 200, client: netip.MustParseAddr("127.0.0.1")}
	for i := range 3000 {
		// Mostly the same or the next second, sometimes a jump, in any zone.
		switch rng.IntN(10) {
		case 0:
			at = at.Add(time.Duration(rng.Int64N(int64(400 * 24 * time.Hour))))
		case 1, 2:
			at = at.Add(time.Duration(rng.Int64N(int64(2 * time.Second))))
		default:
			at = at.Add(time.Duration(rng.Int64N(int64(3 * time.Millisecond))))
		}
		a.at = at.In(zones[rng.IntN(len(zones))])
		if i%97 == 0 {
			a.at = time.Date(1969, 12, 31, 23, 59, 59, rng.IntN(1e9), zones[i%len(zones)])
		}
		var want bytes.Buffer
		log, err := NewLogger(&want, "text", "info")
		if err != nil {
			t.Fatal(err)
		}
		r := slog.NewRecord(a.at, slog.LevelInfo, "request", 0)
		r.AddAttrs(slog.String("method", a.method), slog.String("path", a.path), slog.String("route", a.route),
			slog.Int("status", a.status), slog.Float64("duration_ms", 0), slog.Int("bytes", 0), slog.String("client", "127.0.0.1"))
		if err := log.Handler().Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if got := a.appendTo(nil, false); string(got) != want.String() {
			t.Fatalf("line %d at %v:\n got %q\nwant %q", i, a.at, got, want.String())
		}
	}
}

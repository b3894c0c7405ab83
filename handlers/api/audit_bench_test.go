package api_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/database"
	"cloudplane/models/modelstest"
)

// auditBenchEvents is how many events the benchmark account holds.
const auditBenchEvents = 1_000_000

// auditBench is one account with a million audit events, built once per
// test process (it takes seconds) and shared by the benchmark and the
// latency report; closeAuditBench removes it when the process ends.
type auditBench struct {
	store *models.Store
	app   *fiber.App
	key   string
	actor models.Actor
	// deepToken is the page token after 90% of the events.
	deepToken string
	drop      func()
}

var (
	auditBenchOnce sync.Once
	auditBenchDB   *auditBench
)

// loadAuditBench returns the shared million-event account. It skips under
// -short: building it takes tens of seconds.
func loadAuditBench(tb testing.TB) *auditBench {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds a million audit events; not under -short")
	}
	auditBenchOnce.Do(func() {
		start := time.Now()
		auditBenchDB = buildAuditBench(tb)
		tb.Logf("built %d audit events on %s in %v", auditBenchEvents, modelstest.Backend(), time.Since(start).Round(time.Millisecond))
	})
	if auditBenchDB == nil {
		tb.Fatal("the benchmark database could not be built (see the first failure)")
	}
	return auditBenchDB
}

// closeAuditBench removes the shared database, if one was built.
func closeAuditBench() {
	if auditBenchDB != nil {
		_ = auditBenchDB.store.Close()
		auditBenchDB.drop()
	}
}

func buildAuditBench(tb testing.TB) *auditBench {
	ctx := context.Background()
	dsn, drop := benchDSN(tb)
	built := false
	defer func() { // tb.Fatal below still runs this
		if !built {
			drop()
		}
	}()
	db, err := database.Open(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	ab := &auditBench{drop: drop}
	if err := db.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	ab.store = models.NewStore(db, models.WithConfig(cfg))
	_, ab.key = modelstest.Owner(tb, ab.store, "bench@example.com")
	if ab.actor, err = ab.store.Authenticate(ctx, ab.key); err != nil {
		tb.Fatal(err)
	}
	if err := seedAuditBench(ctx, ab.store, ab.actor.AccountID); err != nil {
		tb.Fatal(err)
	}
	ab.app = handlers.New(handlers.Config{Store: ab.store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ab.deepToken = walkAuditBench(tb, ab)
	built = true
	return ab
}

// benchDSN returns a new database for the process and how to remove it:
// a SQLite file in a temporary folder, or a PostgreSQL database when the
// suite runs on PostgreSQL.
func benchDSN(tb testing.TB) (string, func()) {
	base := os.Getenv(modelstest.PostgresEnv)
	if base == "" {
		dir, err := os.MkdirTemp("", "cloudplane-audit-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		return filepath.Join(dir, "bench.db"), func() { _ = os.RemoveAll(dir) }
	}
	dsn, drop, err := modelstest.CreatePostgresDB(base)
	if err != nil {
		tb.Fatal(err)
	}
	return dsn, func() { _ = drop() }
}

// seedAuditBench inserts the events with multi-row INSERTs, 50,000 to a
// transaction: four events to each instant, ten seconds apart, of four
// resource kinds.
func seedAuditBench(ctx context.Context, store *models.Store, accountID string) error {
	const rowsPerInsert, insertsPerTx = 500, 100
	sqlDB, err := store.DB().DB()
	if err != nil {
		return err
	}
	insert := auditInsertSQL(rowsPerInsert, strings.HasPrefix(os.Getenv(modelstest.PostgresEnv), "postgres"))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	kinds := []string{"filesystem", "api_key", "instance", "firewall_ruleset"}
	owner := "lrn:cloud:account:" + accountID
	actor := "lrn:cloud:user:" + models.NewID()
	args := make([]any, 0, rowsPerInsert*12)
	for i := 0; i < auditBenchEvents; {
		tx, err := sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, insert)
		if err != nil {
			_ = tx.Rollback()
			return err
		}
		for n := 0; n < insertsPerTx && i < auditBenchEvents; n++ {
			args = args[:0]
			for r := 0; r < rowsPerInsert; r, i = r+1, i+1 {
				kind := kinds[i%len(kinds)]
				args = append(args, models.NewID(), accountID, base.Add(time.Duration(i/4)*10*time.Second),
					"cloud", kind, "created", models.AuditCatalogVersion, actor,
					`["lrn:cloud:`+kind+`:`+models.NewID()+`"]`, owner, nil, fmt.Sprintf(`{"name":"bench-%d"}`, i))
			}
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return store.DB().Exec("ANALYZE").Error
}

// auditInsertSQL is one INSERT of n audit_events rows.
func auditInsertSQL(n int, dollar bool) string {
	var b strings.Builder
	b.WriteString("INSERT INTO audit_events (id, account_id, event_time, service_name, resource_name, action, " +
		"catalog_version, actor_lrn, resource_lrns, resource_owner_lrn, request_api_key_lrn, additional_details) VALUES ")
	p := 0
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := 0; c < 12; c++ {
			if c > 0 {
				b.WriteByte(',')
			}
			p++
			if dollar {
				fmt.Fprintf(&b, "$%d", p)
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// walkAuditBench reads every page once, checking that the walk yields each
// event once in order at this scale too, and returns the token after 90%.
func walkAuditBench(tb testing.TB, ab *auditBench) string {
	ctx := context.Background()
	var deep, lastID string
	var last time.Time
	seen := 0
	for in := (models.AuditEventsInput{}); ; {
		page, err := ab.store.AuditEvents(ctx, ab.actor, in)
		if err != nil {
			tb.Fatal(err)
		}
		for _, ev := range page.Events {
			if seen > 0 && (ev.EventTime.Before(last) || ev.EventTime.Equal(last) && ev.ID <= lastID) {
				tb.Fatalf("event %d (%v, %s) is not after (%v, %s)", seen, ev.EventTime, ev.ID, last, lastID)
			}
			last, lastID = ev.EventTime, ev.ID
			seen++
		}
		if seen == auditBenchEvents*9/10 {
			deep = page.NextToken
		}
		if page.NextToken == "" {
			break
		}
		in.PageToken = page.NextToken
	}
	if want := auditBenchEvents + 2; seen != want { // and the fixture's user and key
		tb.Fatalf("walked %d events, want %d", seen, want)
	}
	return deep
}

// auditBenchCases are the pages measured: the first, and one 90% deep.
func auditBenchCases(ab *auditBench) []struct{ name, token string } {
	return []struct{ name, token string }{{"first", ""}, {"deep90", ab.deepToken}}
}

// page fetches one page through the store.
func (ab *auditBench) page(tb testing.TB, token string) {
	page, err := ab.store.AuditEvents(context.Background(), ab.actor, models.AuditEventsInput{PageToken: token})
	if err != nil || len(page.Events) != models.AuditPageSize {
		tb.Fatalf("page: %v", err)
	}
}

// request fetches one page through the whole app.
func (ab *auditBench) request(tb testing.TB, token string) {
	req := httptest.NewRequest(http.MethodGet, "/api/v1/audit-events?page_token="+token, nil)
	req.Header.Set("Authorization", "Bearer "+ab.key)
	res, _ := testserver.Test(tb, ab.app, req)
	if res.StatusCode != http.StatusOK {
		tb.Fatalf("status %d", res.StatusCode)
	}
}

// BenchmarkAuditPage measures a page of a million-event audit log at its
// start and 90% deep, through the store and through the whole app. Keyset
// paging should make both depths cost the same. The page's encoding is
// measured alone too, by encoding/json (as c.JSON did) and as the handler
// appends it.
func BenchmarkAuditPage(b *testing.B) {
	ab := loadAuditBench(b)
	for _, tc := range auditBenchCases(ab) {
		b.Run("store/"+tc.name, func(b *testing.B) {
			for b.Loop() {
				ab.page(b, tc.token)
			}
		})
		b.Run("http/"+tc.name, func(b *testing.B) {
			for b.Loop() {
				ab.request(b, tc.token)
			}
		})
		page, err := ab.store.AuditEvents(context.Background(), ab.actor, models.AuditEventsInput{PageToken: tc.token})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("encode/"+tc.name+"/encoding-json", func(b *testing.B) {
			for b.Loop() {
				if _, err := api.ReferenceAuditPage(page); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("encode/"+tc.name+"/append", func(b *testing.B) {
			for b.Loop() {
				if _, err := api.EncodeAuditPage(page); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAuditLatencyReport times 2,000 page requests at each depth and
// reports the percentiles. It runs only with CLOUDPLANE_BENCH=1; it fails
// when p99 exceeds 5 ms or a deep page costs over 1.5 times the first.
func TestAuditLatencyReport(t *testing.T) {
	if os.Getenv("CLOUDPLANE_BENCH") != "1" {
		t.Skip("set CLOUDPLANE_BENCH=1 to time the audit log at a million events")
	}
	ab := loadAuditBench(t)
	const requests = 2000
	for _, layer := range []struct {
		name  string
		fetch func(testing.TB, string)
	}{{"store", ab.page}, {"http", ab.request}} {
		var means [2]time.Duration
		for i, tc := range auditBenchCases(ab) {
			for range 100 { // warm caches and prepared statements
				layer.fetch(t, tc.token)
			}
			d := make([]time.Duration, requests)
			for j := range d {
				start := time.Now()
				layer.fetch(t, tc.token)
				d[j] = time.Since(start)
			}
			slices.Sort(d)
			var sum time.Duration
			for _, x := range d {
				sum += x
			}
			means[i] = sum / requests
			p99 := d[requests*99/100]
			t.Logf("%s %-6s %-6s mean %8v  p50 %8v  p99 %8v  max %8v", modelstest.Backend(), layer.name, tc.name,
				means[i], d[requests/2], p99, d[requests-1])
			if p99 > 5*time.Millisecond {
				t.Errorf("%s %s: p99 %v over 5ms", layer.name, tc.name, p99)
			}
		}
		if ratio := float64(means[1]) / float64(means[0]); ratio > 1.5 {
			t.Errorf("%s: deep page costs %.2f times the first", layer.name, ratio)
		} else {
			t.Logf("%s %s deep/first mean ratio %.2f", modelstest.Backend(), layer.name, ratio)
		}
	}
}

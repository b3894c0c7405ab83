package handlers

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"gorm.io/gorm"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// The gate runs at most its size of requests at once and lets the others
// in the order they came, one as each running request ends.
func TestAdmissionRunsItsSizeAtOnceInArrivalOrder(t *testing.T) {
	const size, clients = 2, 10
	gate := newAdmission(size)
	entered := make(chan int, clients)
	release := make(chan struct{})
	var mu sync.Mutex
	running, most := 0, 0
	app := fiber.New()
	app.Use(gate.handler)
	app.Get("/work/:n", func(c *fiber.Ctx) error {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		n, _ := strconv.Atoi(c.Params("n"))
		entered <- n
		<-release
		mu.Lock()
		running--
		mu.Unlock()
		return c.SendStatus(http.StatusNoContent)
	})

	var wg sync.WaitGroup
	statuses := make([]int, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := app.Test(httptest.NewRequest(http.MethodGet, fmt.Sprintf("/work/%d", i), nil), -1)
			if err == nil {
				statuses[i] = res.StatusCode
			}
		}()
		// The next client comes once this one runs or waits.
		testserver.Eventually(t, 5*time.Second, func() bool {
			r, w, _ := gate.state()
			return r+w == int64(i+1)
		}, fmt.Sprintf("client %d to reach the gate", i))
	}
	for want := range clients {
		if got := <-entered; got != want {
			t.Fatalf("request %d ran in turn %d", got, want)
		}
		if want >= size-1 && want < clients-1 {
			release <- struct{}{} // one ends, so the next may start
		}
	}
	for range size {
		release <- struct{}{}
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusNoContent {
			t.Fatalf("request %d: status %d", i, s)
		}
	}
	if most != size {
		t.Fatalf("%d requests ran at once, want %d", most, size)
	}
	if r, w, n := gate.state(); r != 0 || w != 0 || n != size {
		t.Fatalf("after the run: %d running, %d waiting, size %d", r, w, n)
	}
}

// A request that cannot get its turn before its deadline is the API's
// 503 with Retry-After, as for a database too slow; health checks skip
// the line; once the running request ends the next one is served.
func TestAdmissionWaitEndsWithTheDeadline(t *testing.T) {
	store := modelstest.Open(t)
	_, key := modelstest.Owner(t, store, "gate@example.com")
	hold, held := make(chan struct{}), make(chan struct{})
	app := New(Config{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		MaxInFlight: 1, RequestTimeout: 300 * time.Millisecond,
		extraAPIRoutes: func(r fiber.Router) {
			r.Get("/hold", func(c *fiber.Ctx) error {
				close(held)
				<-hold // past its own deadline: the handler, not the gate, decides
				return c.JSON(fiber.Map{"data": "held"})
			})
		}})
	first := make(chan reply, 1)
	go func() { first <- doWithin(t, app, apiGet(key, "/api/v1/hold"), 10*time.Second) }()
	<-held

	expectUnavailable(t, doWithin(t, app, apiGet(key, "/api/v1/filesystems"), 5*time.Second))
	if h := doWithin(t, app, httptest.NewRequest(http.MethodGet, "/healthz", nil), 5*time.Second); h.status != http.StatusOK {
		t.Fatalf("healthz behind a full gate: %d %s", h.status, h.body)
	}
	close(hold)
	if a := <-first; a.status != http.StatusOK {
		t.Fatalf("held request: %d %s", a.status, a.body)
	}
	if a := doWithin(t, app, apiGet(key, "/api/v1/filesystems"), 5*time.Second); a.status != http.StatusOK {
		t.Fatalf("after the gate freed: %d %s", a.status, a.body)
	}
}

// Many clients through a small gate, reading and creating on the real
// store (SQLite, or PostgreSQL when configured): every request is served,
// none is refused for waiting its turn.
func TestAdmissionServesManyClientsThroughASmallGate(t *testing.T) {
	store := modelstest.Open(t)
	_, key := modelstest.Owner(t, store, "crowd@example.com")
	app := New(Config{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxInFlight: 3})
	const clients = 48
	var wg sync.WaitGroup
	answers := make([]reply, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := apiGet(key, "/api/v1/filesystems")
			if i%2 == 1 {
				req = httptest.NewRequest(http.MethodPost, "/api/v1/filesystems",
					strings.NewReader(fmt.Sprintf(`{"name": "crowd-%d", "region": "us-east-1"}`, i)))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
			}
			answers[i] = doWithin(t, app, req, 30*time.Second)
		}()
	}
	wg.Wait()
	for i, a := range answers {
		if a.status != http.StatusOK {
			t.Fatalf("client %d: %d %s", i, a.status, a.body)
		}
	}
	list := doWithin(t, app, apiGet(key, "/api/v1/filesystems"), 5*time.Second)
	for i := 1; i < clients; i += 2 {
		if !strings.Contains(list.body, fmt.Sprintf(`"crowd-%d"`, i)) {
			t.Fatalf("filesystem crowd-%d missing from %s", i, list.body)
		}
	}
}

// A request whose write waits in SQLite's writer queue gives its turn
// back while the queue is no longer than the gate: through a gate of one,
// a read runs while that write is queued, and once the write is done the
// gate holds one turn again, not two.
func TestAdmissionTurnGivenBackWhileAWriteIsQueued(t *testing.T) {
	db := modelstest.OpenDatabase(t, filepath.Join(t.TempDir(), "gate.db")) // the writer queue is SQLite's
	gate := newAdmission(1)
	app := fiber.New()
	app.Use(gate.handler)
	app.Post("/write", func(c *fiber.Ctx) error {
		if err := db.Write(c.UserContext(), func(*gorm.DB) error { return nil }); err != nil {
			return err
		}
		return c.SendStatus(http.StatusNoContent)
	})
	app.Get("/read", func(c *fiber.Ctx) error { return c.SendStatus(http.StatusNoContent) })

	// Another change occupies the writer, so the request's change queues.
	busy, finish, occupied := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var finishing sync.Once
	done := func() { finishing.Do(func() { close(finish) }) }
	t.Cleanup(done) // before the database closes, which waits for the writer
	go func() {
		occupied <- db.Write(context.Background(), func(*gorm.DB) error { close(busy); <-finish; return nil })
	}()
	<-busy
	wrote := make(chan reply, 1)
	go func() { wrote <- doWithin(t, app, httptest.NewRequest(http.MethodPost, "/write", nil), 10*time.Second) }()
	testserver.Eventually(t, 5*time.Second, func() bool {
		r, w, _ := gate.state()
		stats, _ := db.WriterStats()
		return r == 0 && w == 0 && stats.Queued == 1
	}, "the write to queue and give its turn back")
	if r := doWithin(t, app, httptest.NewRequest(http.MethodGet, "/read", nil), 5*time.Second); r.status != http.StatusNoContent {
		t.Fatalf("read beside a queued write: %d %s", r.status, r.body)
	}
	select {
	case r := <-wrote:
		t.Fatalf("the write answered %d before its change could run", r.status)
	default:
	}
	// A second queued write would make the queue longer than the gate: it
	// keeps its turn.
	wrote2 := make(chan reply, 1)
	go func() {
		wrote2 <- doWithin(t, app, httptest.NewRequest(http.MethodPost, "/write", nil), 10*time.Second)
	}()
	testserver.Eventually(t, 5*time.Second, func() bool {
		r, _, _ := gate.state()
		stats, _ := db.WriterStats()
		return r == 1 && stats.Queued == 2
	}, "the second write to queue holding its turn")
	done()
	if err := <-occupied; err != nil {
		t.Fatal(err)
	}
	for _, w := range []chan reply{wrote, wrote2} {
		if r := <-w; r.status != http.StatusNoContent {
			t.Fatalf("queued write: %d %s", r.status, r.body)
		}
	}
	if !gate.gate.TryAcquire(1) || gate.gate.TryAcquire(1) {
		t.Fatal("after the write the gate does not hold exactly its one turn")
	}
}

// A queued write whose request gives up (its deadline ends in the queue)
// has given its turn back once, and the gate ends with exactly its turns.
func TestAdmissionTurnOfAnAbandonedQueuedWrite(t *testing.T) {
	db := modelstest.OpenDatabase(t, filepath.Join(t.TempDir(), "gate.db"))
	gate := newAdmission(1)
	app := fiber.New()
	app.Use(gate.handler)
	app.Post("/write", func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 100*time.Millisecond)
		defer cancel()
		if err := db.Write(ctx, func(*gorm.DB) error { return nil }); err != nil {
			return c.SendStatus(http.StatusServiceUnavailable)
		}
		return c.SendStatus(http.StatusNoContent)
	})
	busy, finish, occupied := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var finishing sync.Once
	done := func() { finishing.Do(func() { close(finish) }) }
	t.Cleanup(done)
	go func() {
		occupied <- db.Write(context.Background(), func(*gorm.DB) error { close(busy); <-finish; return nil })
	}()
	<-busy
	if r := doWithin(t, app, httptest.NewRequest(http.MethodPost, "/write", nil), 5*time.Second); r.status != http.StatusServiceUnavailable {
		t.Fatalf("write past its deadline in the queue: %d %s", r.status, r.body)
	}
	done()
	if err := <-occupied; err != nil {
		t.Fatal(err)
	}
	if r, w, _ := gate.state(); r != 0 || w != 0 {
		t.Fatalf("%d running, %d waiting after the request ended", r, w)
	}
	if !gate.gate.TryAcquire(1) || gate.gate.TryAcquire(1) {
		t.Fatal("the gate does not hold exactly its one turn")
	}
}

package testserver

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

func helloApp() *fiber.App {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/hello", func(c *fiber.Ctx) error { return c.SendString("hello " + c.Query("name")) })
	return app
}

// Serve answers on a loopback port 0 over real connections, and Test
// answers the same app in-process.
func TestServeAndTestAnswerTheApp(t *testing.T) {
	app := helloApp()
	s := Serve(t, app)
	if s.URL != "http://"+s.Addr {
		t.Fatalf("URL %q does not name Addr %q", s.URL, s.Addr)
	}
	res, err := http.Get(s.URL + "/hello?name=served")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("served: %d", res.StatusCode)
	}
	res, body := Test(t, app, httptest.NewRequest(http.MethodGet, "/hello?name=test", nil))
	if res.StatusCode != http.StatusOK || string(body) != "hello test" {
		t.Fatalf("in-process: %d %q", res.StatusCode, body)
	}
}

// The wrappers see the listener, innermost first.
func TestServeWrapsTheListenerInOrder(t *testing.T) {
	var order []string
	wrap := func(name string) func(net.Listener) net.Listener {
		return func(ln net.Listener) net.Listener { order = append(order, name); return ln }
	}
	Serve(t, helloApp(), wrap("inner"), wrap("outer"))
	if len(order) != 2 || order[0] != "inner" || order[1] != "outer" {
		t.Fatalf("wrapped in the order %v", order)
	}
}

// Nothing listens on a refused address: a dial fails at once.
func TestRefusedAddressRefuses(t *testing.T) {
	addr := RefusedAddress(t)
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err == nil {
		conn.Close()
		t.Fatalf("%s accepted a connection", addr)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s: %v, want connection refused", addr, err)
	}
}

// Within reports a condition another goroutine makes true, and gives up
// at its deadline on one that never holds.
func TestWithinWaitsToTheDeadline(t *testing.T) {
	var flag atomic.Bool
	time.AfterFunc(20*time.Millisecond, func() { flag.Store(true) })
	Eventually(t, 5*time.Second, flag.Load, "the flag set")
	start := time.Now()
	if Within(50*time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition that never holds held")
	}
	if waited := time.Since(start); waited < 50*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("gave up after %s, want about 50ms", waited)
	}
}

// A suite's database is a SQLite file unless a PostgreSQL server is named.
func TestFreshDatabaseChoosesTheBackend(t *testing.T) {
	dir := t.TempDir()
	created := ""
	create := func(base string) (string, func() error, error) {
		created = base
		return base + "/fresh", func() error { return nil }, nil
	}
	if dsn, _, err := FreshDatabase(dir, "", create); err != nil || dsn != dir+"/cloudplane.db" || created != "" {
		t.Fatalf("SQLite: %q %v (created on %q)", dsn, err, created)
	}
	if dsn, _, err := FreshDatabase(dir, "postgres://db", create); err != nil || dsn != "postgres://db/fresh" {
		t.Fatalf("PostgreSQL: %q %v", dsn, err)
	}
}

// The binary needs a database chosen by the caller.
func TestLaunchWantsADatabase(t *testing.T) {
	if _, err := launch(Options{Binary: "/bin/false"}); err == nil {
		t.Fatal("launched without a database")
	}
}

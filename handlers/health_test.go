package handlers

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

func probe(t *testing.T, cfg Config, path string) (int, map[string]string) {
	t.Helper()
	res, err := New(cfg).Test(httptest.NewRequest(http.MethodGet, path, nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var body map[string]string
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("%s: not JSON: %s", path, raw)
	}
	return res.StatusCode, body
}

func TestLivezAndReadyz(t *testing.T) {
	store := modelstest.Open(t)
	deadRedis := redis.NewClient(&redis.Options{Addr: testserver.RefusedAddress(t), MaxRetries: -1})
	t.Cleanup(func() { deadRedis.Close() })
	redisDown := Dependency{Name: "redis", Ping: func(ctx context.Context) error { return deadRedis.Ping(ctx).Err() }}
	up := Dependency{Name: "cache", Ping: func(context.Context) error { return nil }}

	cases := []struct {
		name   string
		cfg    Config
		path   string
		status int
		reason string // prefix of the reason, for 503
	}{
		{"live", Config{Store: store}, "/livez", 200, ""},
		{"ready", Config{Store: store}, "/readyz", 200, ""},
		{"ready with its dependencies", Config{Store: store, Dependencies: []Dependency{up}}, "/readyz", 200, ""},
		{"redis on a closed port", Config{Store: store, Dependencies: []Dependency{up, redisDown}}, "/readyz", 503, "redis: "},
		{"live whatever redis does", Config{Store: store, Dependencies: []Dependency{redisDown}}, "/livez", 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := probe(t, tc.cfg, tc.path)
			if status != tc.status {
				t.Fatalf("%s: %d %v, want %d", tc.path, status, body, tc.status)
			}
			want := "ok"
			if status == 503 {
				want = "unavailable"
			}
			if body["status"] != want || !strings.HasPrefix(body["reason"], tc.reason) {
				t.Fatalf("%s: body %v, want status %s and reason %q...", tc.path, body, want, tc.reason)
			}
		})
	}
}

// A database that lacks a migration this binary knows is not ready: the
// replica would run queries against a schema it does not expect.
func TestReadyzWantsEveryMigration(t *testing.T) {
	store := modelstest.Open(t)
	if err := store.DB().Exec("DELETE FROM schema_migrations").Error; err != nil {
		t.Fatal(err)
	}
	status, body := probe(t, Config{Store: store}, "/readyz")
	if status != 503 || !strings.HasPrefix(body["reason"], "database: ") || !strings.Contains(body["reason"], "pending migration") {
		t.Fatalf("readyz with a migration pending: %d %v", status, body)
	}
}

// Once the database is gone, /readyz and /healthz say so; /livez does not
// depend on it.
func TestReadyzWithoutDatabase(t *testing.T) {
	store := modelstest.Open(t)
	_ = store.Close()
	cfg := Config{Store: store}
	if status, body := probe(t, cfg, "/readyz"); status != 503 || body["status"] != "unavailable" ||
		!strings.HasPrefix(body["reason"], "database: ") {
		t.Fatalf("readyz: %d %v", status, body)
	}
	if status, _ := probe(t, cfg, "/healthz"); status != 503 {
		t.Fatalf("healthz: %d", status)
	}
	if status, _ := probe(t, cfg, "/livez"); status != 200 {
		t.Fatalf("livez: %d", status)
	}
}

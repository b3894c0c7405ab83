// Package replicas runs three `cloudplane serve` processes on one
// PostgreSQL database and one Redis, as an operator scaling out would, and
// checks that they behave as one service.
package replicas

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

const redisAddr = "127.0.0.1:6379"

// cluster is three replicas on one fresh database.
type cluster struct {
	dsn      string
	replicas []*testserver.Server
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("replica tests start three servers; skipped with -short")
	}
	if testserver.PostgresURL() == "" {
		t.Skip("replica tests need PostgreSQL: set " + testserver.PostgresEnv)
	}
	if c, err := net.DialTimeout("tcp", redisAddr, time.Second); err != nil {
		t.Skipf("replica tests need Redis on %s: %v", redisAddr, err)
	} else {
		c.Close()
	}
	dsn := modelstest.EmptyDSN(t) // not even migrated: the replicas race to do it
	testserver.Binary(t)          // built before the clock starts
	serve := testserver.Options{Database: dsn, Env: []string{"CLOUDPLANE_REDIS_URL=redis://" + redisAddr,
		"CLOUDPLANE_RATE_LIMIT=off", "CLOUDPLANE_WEBHOOK_ALLOW_PRIVATE=true",
		"CLOUDPLANE_WEBHOOK_RETRY_SCHEDULE=1s", "CLOUDPLANE_INSTANCE_CAPACITY=gpu_1x_a10:us-east-1=10"}}
	c := &cluster{dsn: dsn, replicas: make([]*testserver.Server, 3)}
	// All three at the same moment on an empty database: each migrates at
	// start, and none may fail.
	var wg sync.WaitGroup
	for i := range c.replicas {
		wg.Add(1)
		go func() { defer wg.Done(); c.replicas[i] = testserver.Start(t, serve) }()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return c
}

// owner creates an owner through the CLI and returns a key of theirs.
func (c *cluster) owner(t *testing.T, email string) string {
	t.Helper()
	c.cli(t, "users", "create", "--email", email, "--password", "correct horse battery")
	out := c.cli(t, "apikeys", "create", "--email", email)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

func (c *cluster) cli(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := testserver.Run(t, []string{"CLOUDPLANE_DATABASE=" + c.dsn}, args...)
	if code != 0 {
		t.Fatalf("cloudplane %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// call sends an API request to one replica and returns status and body.
func call(t *testing.T, s *testserver.Server, key, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestReplicasActAsOneService(t *testing.T) {
	c := startCluster(t)
	r := c.replicas

	t.Run("launch rate limit is shared through Redis", func(t *testing.T) {
		key := c.owner(t, "launcher@example.com")
		if code, body := call(t, r[0], key, "POST", "/api/v1/ssh-keys",
			`{"name":"laptop"}`); code != 200 {
			t.Fatalf("add ssh key: %d %s", code, body)
		}
		launch := `{"region_name":"us-east-1","instance_type_name":"gpu_1x_a10","ssh_key_names":["laptop"]}`
		if code, body := call(t, r[0], key, "POST", "/api/v1/instance-operations/launch", launch); code != 200 {
			t.Fatalf("first launch: %d %s", code, body)
		}
		for i, s := range r[1:] {
			if code, body := call(t, s, key, "POST", "/api/v1/instance-operations/launch", launch); code != http.StatusTooManyRequests {
				t.Fatalf("second launch within 12 s on replica %d: %d %s; want 429 from the shared limit", i+2, code, body)
			}
		}
	})

	key := c.owner(t, "ada@example.com")
	t.Run("a filesystem created on one replica is listed by the others at once", func(t *testing.T) {
		// Each replica caches the list; warm every cache first.
		for _, s := range r {
			call(t, s, key, "GET", "/api/v1/filesystems", "")
		}
		if code, body := call(t, r[0], key, "POST", "/api/v1/filesystems", `{"name":"shared","region":"us-east-1"}`); code != 200 {
			t.Fatalf("create: %d %s", code, body)
		}
		for i, s := range r[1:] {
			if code, body := call(t, s, key, "GET", "/api/v1/filesystems", ""); code != 200 || !strings.Contains(body, `"name":"shared"`) {
				t.Fatalf("replica %d right after the create: %d %s", i+2, code, body)
			}
		}
	})

	t.Run("webhooks are delivered exactly once", func(t *testing.T) {
		var mu sync.Mutex
		seen := map[string]int{}
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			mu.Lock()
			seen[req.Header.Get("webhook-id")]++
			mu.Unlock()
		}))
		defer receiver.Close()
		c.cli(t, "webhooks", "set", "--email", "ada@example.com", "--url", receiver.URL, "--webhook-allow-private")
		const tickets = 12
		for i := range tickets {
			body := fmt.Sprintf(`{"subject":"ticket %d","description":"d","type":"service_request"}`, i)
			if code, out := call(t, r[i%3], key, "POST", "/api/v1/tickets", body); code != 200 {
				t.Fatalf("create ticket %d: %d %s", i, code, out)
			}
		}
		// Wait until no delivery is pending: then nothing more can be sent.
		store := modelstest.OpenAt(t, c.dsn)
		testserver.Eventually(t, 60*time.Second, func() bool {
			var pending int64
			if err := store.DB().Model(&models.WebhookDelivery{}).Where("status = ?", models.DeliveryPending).
				Count(&pending).Error; err != nil {
				t.Fatal(err)
			}
			return pending == 0
		}, "no delivery pending")
		mu.Lock()
		defer mu.Unlock()
		if len(seen) != tickets {
			t.Fatalf("%d distinct events received, want %d", len(seen), tickets)
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("event %s delivered %d times", id, n)
			}
		}
	})

	t.Run("a revoked key is refused by every replica within 1 s", func(t *testing.T) {
		for _, s := range r { // every replica has the key cached
			if code, _ := call(t, s, key, "GET", "/api/v1/filesystems", ""); code != 200 {
				t.Fatalf("before revocation: %d", code)
			}
		}
		prefix := key[:12]
		c.cli(t, "apikeys", "revoke", "--email", "ada@example.com", "--prefix", prefix)
		revoked := time.Now()
		for i, s := range r {
			testserver.Eventually(t, time.Until(revoked.Add(time.Second)), func() bool {
				code, _ := call(t, s, key, "GET", "/api/v1/filesystems", "")
				return code == http.StatusUnauthorized
			}, fmt.Sprintf("replica %d to refuse the key within 1 s of its revocation", i+1))
		}
	})

	t.Run("a demoted or removed member's key is refused by every replica within 1 s", func(t *testing.T) {
		c.owner(t, "grace@example.com")
		memberKey := c.member(t, "grace@example.com", "linus@example.com")
		for _, s := range r { // every replica has the key cached, with the member's role
			if code, body := call(t, s, memberKey, "PUT", "/api/v1/firewall-rules", `{"data":[]}`); code != 200 {
				t.Fatalf("member's write before the change: %d %s", code, body)
			}
		}
		c.cli(t, "members", "set-role", "--account", "grace@example.com", "--email", "linus@example.com", "--role", "viewer")
		demoted := time.Now()
		for i, s := range r {
			testserver.Eventually(t, time.Until(demoted.Add(time.Second)), func() bool {
				code, body := call(t, s, memberKey, "PUT", "/api/v1/firewall-rules", `{"data":[]}`)
				return code == http.StatusForbidden && strings.Contains(body, string(models.CodeInsufficientScope))
			}, fmt.Sprintf("replica %d to refuse the demoted member's write within 1 s", i+1))
		}
		c.cli(t, "members", "remove", "--account", "grace@example.com", "--email", "linus@example.com")
		removed := time.Now()
		for i, s := range r {
			testserver.Eventually(t, time.Until(removed.Add(time.Second)), func() bool {
				code, _ := call(t, s, memberKey, "GET", "/api/v1/filesystems", "")
				return code == http.StatusUnauthorized
			}, fmt.Sprintf("replica %d to refuse the removed member's key within 1 s", i+1))
		}
	})
}

// member makes a new user a member of the account of ownerEmail, through
// the domain on the replicas' database (invitations come by email), and
// returns a full key of theirs in that account.
func (c *cluster) member(t *testing.T, ownerEmail, email string) string {
	t.Helper()
	store := modelstest.OpenAt(t, c.dsn)
	owner, err := store.MemberActorByEmail(context.Background(), ownerEmail, ownerEmail)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := modelstest.Member(t, store, owner, email, models.RoleMember)
	_, secret, err := store.CreateAPIKey(context.Background(), a, models.CreateAPIKeyInput{Name: "full"})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

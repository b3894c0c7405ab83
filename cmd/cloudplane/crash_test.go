package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gorm.io/gorm"

	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// crashReceiver holds requests open while the first process runs (so some
// deliveries are in flight when it is killed) and acknowledges everything
// once the test says the process is dead.
type crashReceiver struct {
	mu        sync.Mutex
	delivered map[string]bool // ticket ids acknowledged to the second process
	inFlight  chan struct{}   // one per request held open
	killed    chan struct{}
	complete  chan struct{} // closed once every ticket is acknowledged
	want      map[string]bool
}

func (rc *crashReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	select {
	case <-rc.killed:
	default:
		rc.inFlight <- struct{}{}
		select {
		case <-rc.killed: // the sender is dead; nobody reads this answer
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var env struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &env)
	w.WriteHeader(http.StatusOK)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.delivered[env.Data.ID] = true
	if len(rc.want) > 0 && rc.coversLocked() {
		select {
		case <-rc.complete:
		default:
			close(rc.complete)
		}
	}
}

func (rc *crashReceiver) coversLocked() bool {
	for id := range rc.want {
		if !rc.delivered[id] {
			return false
		}
	}
	return true
}

// expect sets the tickets whose events must all be acknowledged.
func (rc *crashReceiver) expect(ids []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.want = map[string]bool{}
	for _, id := range ids {
		rc.want[id] = true
	}
}

// A server killed with SIGKILL while deliveries are pending and in flight
// loses none of them: after a restart every committed event is delivered.
func TestKilledServerLosesNoWebhook(t *testing.T) {
	const tickets, workers = 20, 4
	dsn := migrated(t, modelstest.DSN(t))
	key := owner(t, dsn, "owner@example.com")
	rc := &crashReceiver{delivered: map[string]bool{}, inFlight: make(chan struct{}, 100),
		killed: make(chan struct{}), complete: make(chan struct{})}
	receiver := httptest.NewServer(rc)
	t.Cleanup(receiver.Close)
	mustCLI(t, "webhooks", "set", "--database", dsn, "--email", "owner@example.com", "--url", receiver.URL, "--webhook-allow-private")
	serve := testserver.Options{Database: dsn, Args: []string{"--rate-limit", "off", "--webhook-allow-private", "--webhook-timeout", "1s",
		"--webhook-workers", "4", "--webhook-retry-schedule", "100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms"}}

	first := testserver.Start(t, serve)
	var ids []string
	for i := 0; i < tickets; i++ {
		ids = append(ids, createTicket(t, first.URL, key))
	}
	for i := 0; i < workers; i++ { // every worker holds a delivery open
		select {
		case <-rc.inFlight:
		case <-time.After(20 * time.Second):
			t.Fatalf("only %d deliveries in flight", i)
		}
	}
	if code := first.Stop(t, syscall.SIGKILL, 30*time.Second); code != -1 {
		t.Fatalf("exit %d, want death by SIGKILL", code)
	}
	// The dead process left deliveries both in flight (leased) and waiting.
	store := openDB(t, dsn)
	var leased, waiting int64
	pending := store.DB().Model(&models.WebhookDelivery{}).Where("status = ?", models.DeliveryPending)
	pending.Session(&gorm.Session{}).Where("lease_owner <> ''").Count(&leased)
	pending.Session(&gorm.Session{}).Where("lease_owner = ''").Count(&waiting)
	if leased == 0 || waiting == 0 {
		t.Fatalf("at the kill %d deliveries were in flight and %d waiting; want some of each", leased, waiting)
	}
	t.Logf("killed with %d deliveries in flight and %d waiting", leased, waiting)
	rc.expect(ids)
	close(rc.killed)

	second := testserver.Start(t, serve)
	select {
	case <-rc.complete:
	case <-time.After(60 * time.Second):
		rc.mu.Lock()
		t.Fatalf("after the restart %d of %d events were delivered", len(rc.delivered), tickets)
	}
	if code := second.Stop(t, syscall.SIGTERM, 30*time.Second); code != 0 {
		t.Fatalf("graceful stop exited %d", code)
	}
	// The log agrees: every committed event has one delivery, succeeded.
	var events, succeeded int64
	store.DB().Model(&models.WebhookEvent{}).Count(&events)
	store.DB().Model(&models.WebhookDelivery{}).Where("status = ?", models.DeliverySucceeded).Count(&succeeded)
	if events != tickets || succeeded != tickets {
		t.Fatalf("%d events, %d succeeded deliveries; want %d of each", events, succeeded, tickets)
	}
}

func createTicket(t *testing.T, base, key string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, base+"/api/v1/tickets",
		strings.NewReader(`{"subject": "crash", "description": "d", "type": "incident", "severity": "sev_1"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != 200 || body.Data.ID == "" {
		t.Fatalf("create ticket: %d %v", res.StatusCode, err)
	}
	return body.Data.ID
}

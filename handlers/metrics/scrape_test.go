package metrics_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
	"cloudplane/handlers/metrics"
	"cloudplane/handlers/ratelimit"
	"cloudplane/handlers/testserver"
	"cloudplane/models"
	"cloudplane/models/modelstest"
	"cloudplane/webhooks"
)

const wait = 10 * time.Second

// serve runs h on a listener of its own on port 0 and returns its URL.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// scrape reads the metrics endpoint as Prometheus would.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d", res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("scrape does not parse: %v", err)
	}
	return families
}

// value finds the series of family name with exactly labels and returns
// its counter or gauge value, or its histogram's count; -1 when absent.
func value(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	f := families[name]
	if f == nil {
		return -1
	}
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

// The whole path: requests answered 200, 404 and 429, a refused sign-in
// and a webhook delivered to a receiver all show up in one scrape of the
// metrics listener, labelled by route pattern, never by raw path.
func TestScrapeAfterTraffic(t *testing.T) {
	cfg := models.DefaultConfig()
	cfg.PasswordCost = 4
	cfg.WebhookAllowPrivate = true
	store := modelstest.Open(t, models.WithConfig(cfg))
	ctx := context.Background()
	owner, key := modelstest.Owner(t, store, "metrics@example.com")

	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	enabled := true
	if _, _, err := store.SetWebhook(ctx, owner.Actor(), models.SetWebhookInput{URL: receiver.URL, Token: "a-receiver-token-0123", Enabled: &enabled}); err != nil {
		t.Fatal(err)
	}

	m := metrics.New(metrics.Build{Version: "v9.9.9", Commit: "abc", GoVersion: "go1.x"})
	sqlDB, err := store.DB().DB()
	if err != nil {
		t.Fatal(err)
	}
	m.WatchDatabase(sqlDB)
	m.WatchWebhookQueue(func(ctx context.Context) (metrics.WebhookQueue, error) {
		q, err := store.WebhookQueueState(ctx)
		return metrics.WebhookQueue{Pending: q.Pending, OldestDue: q.OldestDue}, err
	}, store.Now, 2*time.Second)
	metricsURL := serve(t, m.Handler())

	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	general, err := ratelimit.NewMemory(ratelimit.Quota{Rate: time.Hour, Burst: 2})
	if err != nil {
		t.Fatal(err)
	}
	app := handlers.New(handlers.Config{Store: store, Log: discard, Metrics: m, MaxInFlight: 7,
		Limits: api.Limits{General: ratelimit.Observed(general, m.RateLimitRejected("api"))}})
	base := testserver.Serve(t, app).URL

	// Recorded runs once the attempt is stored and counted.
	recorded := make(chan struct{}, 10)
	disp := webhooks.New(store, webhooks.Config{AllowPrivate: true, Metrics: m, Log: discard,
		Recorded: func(models.DeliveryJob, models.WebhookAttempt, models.DeliveryDecision) { recorded <- struct{}{} }})
	store.OnOutbox(disp.Wake)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = disp.Run(runCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done })

	get := func(path string, withKey bool) int {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if withKey {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i, want := range []int{200, 200, 429} {
		if got := get("/api/v1/filesystems", true); got != want {
			t.Fatalf("API request %d: %d, want %d", i, got, want)
		}
	}
	for _, p := range []string{"/no/such/page", "/nor/this/one"} {
		if got := get(p, false); got != 404 {
			t.Fatalf("%s: %d", p, got)
		}
	}
	if got := failedSignIn(t, base); got != http.StatusUnprocessableEntity {
		t.Fatalf("sign-in with a wrong password: %d", got)
	}
	if _, err := store.CreateTicket(ctx, owner.Actor(), models.CreateTicketInput{
		Subject: "help", Description: "d", Type: models.TicketServiceRequest}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-recorded:
	case <-time.After(wait):
		t.Fatal("no delivery attempt was recorded")
	}

	families := scrape(t, metricsURL)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"http_server_request_duration_seconds", map[string]string{"method": "GET", "route": "/api/v1/filesystems", "status": "200"}, 2},
		{"http_server_request_duration_seconds", map[string]string{"method": "GET", "route": "/api/v1", "status": "429"}, 1},
		{"http_server_request_duration_seconds", map[string]string{"method": "GET", "route": "unmatched", "status": "404"}, 2},
		{"http_server_request_duration_seconds", map[string]string{"method": "POST", "route": "/sign-in", "status": "422"}, 1},
		{"cloudplane_rate_limit_rejections_total", map[string]string{"limiter": "api"}, 1},
		{"cloudplane_signin_failures_total", map[string]string{}, 1},
		{"cloudplane_webhook_deliveries_total", map[string]string{"outcome": "success"}, 1},
		{"cloudplane_webhook_deliveries_total", map[string]string{"outcome": "retry"}, 0},
		{"cloudplane_webhook_queue_depth", map[string]string{}, 0},
		{"cloudplane_webhook_oldest_due_seconds", map[string]string{}, 0},
		{"cloudplane_build_info", map[string]string{"version": "v9.9.9", "commit": "abc", "go_version": "go1.x"}, 1},
		// The scrape runs on its own listener: no API request is running.
		{"cloudplane_requests_in_flight", map[string]string{}, 0},
		{"cloudplane_requests_waiting", map[string]string{}, 0},
		{"cloudplane_requests_in_flight_limit", map[string]string{}, 7},
	} {
		if got := value(families, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if got := value(families, "go_sql_max_open_connections", map[string]string{"db_name": "cloudplane"}); got <= 0 {
		t.Errorf("no database pool statistics: %v", got)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if families[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	for _, m := range families["http_server_request_duration_seconds"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "route" && strings.Contains(l.GetValue(), "such") {
				t.Errorf("a raw path became a route label: %s", l.GetValue())
			}
		}
	}
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([0-9a-f]+)"`)

// failedSignIn signs in with a wrong password, CSRF token and all, and
// returns the status.
func failedSignIn(t *testing.T, base string) int {
	t.Helper()
	res, err := http.Get(base + "/sign-in")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	token := csrfField.FindStringSubmatch(string(body))
	if token == nil {
		t.Fatalf("no CSRF token on the sign-in page:\n%s", body)
	}
	form := url.Values{"email": {"metrics@example.com"}, "password": {"wrong"}, "csrf_token": {token[1]}}
	req, _ := http.NewRequest(http.MethodPost, base+"/sign-in", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range res.Cookies() {
		req.AddCookie(c)
	}
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

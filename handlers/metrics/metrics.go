// Package metrics exposes the server's Prometheus metrics on a registry
// of its own. The HTTP layer and the webhook dispatcher call its typed
// methods; a nil *Metrics (metrics switched off) ignores every call, so
// callers need no check. It imports no domain package: the collectors
// call, at scrape time, functions the caller wires to the store, and
// take the figures in types declared here.
package metrics

import (
	"database/sql"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Build names the running binary in cloudplane_build_info.
type Build struct {
	Version, Commit, GoVersion string
}

// Metrics is one process's metrics.
type Metrics struct {
	reg            *prometheus.Registry
	requests       *requestHistogram
	rateLimited    *prometheus.CounterVec
	deliveries     *prometheus.CounterVec
	signInFailures prometheus.Counter
}

// Outcome is what became of one webhook delivery attempt.
type Outcome string

// The outcomes of an attempt, as cloudplane_webhook_deliveries_total
// labels them.
const (
	DeliverySucceeded Outcome = "success"
	DeliveryRetried   Outcome = "retry"    // failed, another try is scheduled
	DeliveryFailed    Outcome = "failed"   // failed, no try left
	DeliveryDisabled  Outcome = "disabled" // the endpoint asked to be switched off (410)
)

// New returns the metrics of a process running build, with the Go
// runtime's and the process's own.
func New(b Build) *Metrics {
	m := &Metrics{
		reg:      prometheus.NewRegistry(),
		requests: newRequestHistogram(),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cloudplane_rate_limit_rejections_total",
			Help: "Requests refused by a rate limiter, by limiter.",
		}, []string{"limiter"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cloudplane_webhook_deliveries_total",
			Help: "Webhook delivery attempts recorded, by outcome.",
		}, []string{"outcome"}),
		signInFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cloudplane_signin_failures_total",
			Help: "Dashboard sign-ins refused for a wrong email or password.",
		}),
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "cloudplane_build_info",
		Help:        "Always 1; the labels name the running build.",
		ConstLabels: prometheus.Labels{"version": b.Version, "commit": b.Commit, "go_version": b.GoVersion},
	})
	info.Set(1)
	// Every outcome from the start, so a rate over them is defined before
	// the first failure.
	for _, o := range []Outcome{DeliverySucceeded, DeliveryRetried, DeliveryFailed, DeliveryDisabled} {
		m.deliveries.WithLabelValues(string(o))
	}
	m.reg.MustRegister(m.requests, m.rateLimited, m.deliveries, m.signInFailures, info,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format. A collector
// that fails (the database is down) drops its own series, not the rest.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// WatchDatabase adds the connection pool's statistics
// (go_sql_* with db_name="cloudplane").
func (m *Metrics) WatchDatabase(db *sql.DB) {
	if m != nil {
		m.reg.MustRegister(collectors.NewDBStatsCollector(db, "cloudplane"))
	}
}

// ObserveRequest records one answered request. route must be a registered
// pattern or a fixed label, never the raw path, to keep the series few.
// method and route must not be reused memory (fiber's request strings):
// they are kept as labels.
func (m *Metrics) ObserveRequest(method, route string, status int, took time.Duration) {
	if m != nil {
		m.requests.observe(method, route, status, took)
	}
}

// RateLimitRejected returns the function a limiter calls for each request
// it refuses, counted under limiter; nil when metrics are off.
func (m *Metrics) RateLimitRejected(limiter string) func() {
	if m == nil {
		return nil
	}
	c := m.rateLimited.WithLabelValues(limiter)
	return c.Inc
}

// WebhookDelivery counts one recorded delivery attempt.
func (m *Metrics) WebhookDelivery(o Outcome) {
	if m != nil {
		m.deliveries.WithLabelValues(string(o)).Inc()
	}
}

// SignInFailed counts a sign-in refused for wrong credentials.
func (m *Metrics) SignInFailed() {
	if m != nil {
		m.signInFailures.Inc()
	}
}

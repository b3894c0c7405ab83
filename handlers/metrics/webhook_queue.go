package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// WebhookQueue is what the webhook queue's series show. The caller reads
// it from the store and fills it in: metrics knows no domain type.
type WebhookQueue struct {
	Pending   int64      // deliveries waiting for an attempt, due or not
	OldestDue *time.Time // when the longest-waiting due delivery fell due; nil if none is
}

// WatchWebhookQueue adds cloudplane_webhook_queue_depth and
// cloudplane_webhook_oldest_due_seconds, read by calling read at each
// scrape with at most timeout to answer: a slow database costs a scrape
// those series, not a hung scrape.
func (m *Metrics) WatchWebhookQueue(read func(context.Context) (WebhookQueue, error), now func() time.Time, timeout time.Duration) {
	if m != nil {
		m.reg.MustRegister(&queueCollector{read: read, now: now, timeout: timeout})
	}
}

var (
	queueDepthDesc = prometheus.NewDesc("cloudplane_webhook_queue_depth",
		"Webhook deliveries waiting for an attempt, due or scheduled for a retry.", nil, nil)
	oldestDueDesc = prometheus.NewDesc("cloudplane_webhook_oldest_due_seconds",
		"How long the longest-waiting due webhook delivery has been due; 0 when none is.", nil, nil)
)

type queueCollector struct {
	read    func(context.Context) (WebhookQueue, error)
	now     func() time.Time
	timeout time.Duration
}

func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDepthDesc
	ch <- oldestDueDesc
}

func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), q.timeout)
	defer cancel()
	state, err := q.read(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueDepthDesc, err)
		return
	}
	age := 0.0
	if state.OldestDue != nil {
		age = max(0, q.now().Sub(*state.OldestDue).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(state.Pending))
	ch <- prometheus.MustNewConstMetric(oldestDueDesc, prometheus.GaugeValue, age)
}

package metrics

import "github.com/prometheus/client_golang/prometheus"

var (
	admissionRunningDesc = prometheus.NewDesc("cloudplane_requests_in_flight",
		"Requests running their handlers now.", nil, nil)
	admissionWaitingDesc = prometheus.NewDesc("cloudplane_requests_waiting",
		"Requests waiting for their turn to run (the server is at --max-in-flight).", nil, nil)
	admissionLimitDesc = prometheus.NewDesc("cloudplane_requests_in_flight_limit",
		"How many requests may run at once (--max-in-flight).", nil, nil)
)

// WatchAdmission reports the HTTP layer's admission gate, read at scrape
// time.
func (m *Metrics) WatchAdmission(read func() (running, waiting, limit int64)) {
	if m != nil {
		m.reg.MustRegister(admissionCollector(read))
	}
}

type admissionCollector func() (running, waiting, limit int64)

func (admissionCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- admissionRunningDesc
	ch <- admissionWaitingDesc
	ch <- admissionLimitDesc
}

func (read admissionCollector) Collect(ch chan<- prometheus.Metric) {
	running, waiting, limit := read()
	ch <- prometheus.MustNewConstMetric(admissionRunningDesc, prometheus.GaugeValue, float64(running))
	ch <- prometheus.MustNewConstMetric(admissionWaitingDesc, prometheus.GaugeValue, float64(waiting))
	ch <- prometheus.MustNewConstMetric(admissionLimitDesc, prometheus.GaugeValue, float64(limit))
}

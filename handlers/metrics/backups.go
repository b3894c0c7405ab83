package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// backupMetrics count scheduled backups; registered on first use so a
// server without --backup-dir shows none.
type backupMetrics struct {
	taken       *prometheus.CounterVec
	lastSuccess prometheus.Gauge
}

// WatchBackups registers the scheduled backups' series and returns the
// function the schedule calls after each backup (nil err: written and
// checked); nil when metrics are off.
func (m *Metrics) WatchBackups() func(at time.Time, err error) {
	if m == nil {
		return nil
	}
	b := backupMetrics{
		taken: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cloudplane_backups_total",
			Help: "Scheduled SQLite backups, by outcome (success: written and integrity-checked).",
		}, []string{"outcome"}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "cloudplane_backup_last_success_timestamp_seconds",
			Help: "When the newest scheduled backup that passed its check was taken (Unix time), 0 before the first.",
		}),
	}
	b.taken.WithLabelValues("success")
	b.taken.WithLabelValues("failure")
	m.reg.MustRegister(b.taken, b.lastSuccess)
	return func(at time.Time, err error) {
		if err != nil {
			b.taken.WithLabelValues("failure").Inc()
			return
		}
		b.taken.WithLabelValues("success").Inc()
		b.lastSuccess.Set(float64(at.Unix()))
	}
}

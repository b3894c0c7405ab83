package metrics

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The striped histogram scrapes as client_golang's own histogram would
// with the same observations, made from many goroutines at once: the same
// series, counts, cumulative buckets and sum. The durations include every
// bucket's exact bound (which belongs to that bucket), zero and one past
// the last bound; scrapes run meanwhile.
func TestRequestHistogramScrapesAsClientGolangs(t *testing.T) {
	ours := newRequestHistogram()
	theirs := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "http_server_request_duration_seconds",
		Help:    "Time to answer HTTP requests, by method, matched route pattern and status.",
		Buckets: requestBucketSeconds[:],
	}, []string{"method", "route", "status"})
	durations := []time.Duration{0, time.Nanosecond, 11 * time.Second, time.Hour}
	for _, b := range requestBuckets {
		durations = append(durations, b-1, b, b+1)
	}
	series := []requestSeries{{"GET", "/api/v1/filesystems", 200}, {"POST", "/api/v1/filesystems", 400},
		{"GET", "unmatched", 404}}
	const goroutines, rounds = 16, 50
	var wg sync.WaitGroup
	// Scraped while observed: a series' count is never below its last
	// finite bucket's, and never falls from one scrape to the next.
	stop := make(chan struct{})
	scraped := make(chan error, 1)
	go func() {
		last := map[string]uint64{}
		for {
			select {
			case <-stop:
				scraped <- nil
				return
			default:
			}
			scrape, err := gatherSeries(ours)
			if err != nil {
				scraped <- err
				return
			}
			for key, m := range scrape {
				h := m.GetHistogram()
				b := h.GetBucket()
				if h.GetSampleCount() < b[len(b)-1].GetCumulativeCount() || h.GetSampleCount() < last[key] {
					scraped <- fmt.Errorf("%s: count %d, le=10 bucket %d, previous count %d", key,
						h.GetSampleCount(), b[len(b)-1].GetCumulativeCount(), last[key])
					return
				}
				last[key] = h.GetSampleCount()
			}
		}
	}()
	for g := range goroutines {
		wg.Go(func() {
			for r := range rounds {
				for i, d := range durations {
					s := series[(g+r+i)%len(series)]
					ours.observe(s.method, s.route, s.status, d)
					theirs.WithLabelValues(s.method, s.route, strconv.Itoa(s.status)).Observe(d.Seconds())
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	if err := <-scraped; err != nil {
		t.Fatal(err)
	}

	got, want := gather(t, ours), gather(t, theirs)
	if len(got) != len(series) || len(want) != len(series) {
		t.Fatalf("%d series scraped, client_golang's %d, want %d", len(got), len(want), len(series))
	}
	total := uint64(0)
	for key, w := range want {
		g, ok := got[key]
		if !ok {
			t.Fatalf("series %s missing", key)
		}
		gh, wh := g.GetHistogram(), w.GetHistogram()
		total += gh.GetSampleCount()
		if gh.GetSampleCount() != wh.GetSampleCount() {
			t.Errorf("%s: count %d, want %d", key, gh.GetSampleCount(), wh.GetSampleCount())
		}
		if diff := math.Abs(gh.GetSampleSum() - wh.GetSampleSum()); diff > 1e-9*wh.GetSampleSum() {
			t.Errorf("%s: sum %v, want %v", key, gh.GetSampleSum(), wh.GetSampleSum())
		}
		if len(gh.GetBucket()) != len(wh.GetBucket()) {
			t.Fatalf("%s: %d buckets, want %d", key, len(gh.GetBucket()), len(wh.GetBucket()))
		}
		for i, b := range wh.GetBucket() {
			gb := gh.GetBucket()[i]
			if gb.GetUpperBound() != b.GetUpperBound() || gb.GetCumulativeCount() != b.GetCumulativeCount() {
				t.Errorf("%s: bucket le=%v count %d, want le=%v count %d", key,
					gb.GetUpperBound(), gb.GetCumulativeCount(), b.GetUpperBound(), b.GetCumulativeCount())
			}
		}
	}
	if want := uint64(goroutines * rounds * len(durations)); total != want {
		t.Errorf("%d observations scraped, want %d", total, want)
	}
}

// gather scrapes c alone and returns its series by their labels.
func gather(t *testing.T, c prometheus.Collector) map[string]*dto.Metric {
	t.Helper()
	out, err := gatherSeries(c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gatherSeries(c prometheus.Collector) (map[string]*dto.Metric, error) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]*dto.Metric{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			out[key] = m
		}
	}
	return out, nil
}

// BenchmarkObserveRequest is one request's observation, from every CPU
// at once, into one series: what the read benchmark's requests do.
func BenchmarkObserveRequest(b *testing.B) {
	m := New(Build{})
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.ObserveRequest("GET", "/api/v1/filesystems", 200, 1500*time.Microsecond)
		}
	})
}

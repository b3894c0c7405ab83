package metrics

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// requestBucketSeconds are the request histogram's upper bounds:
// Prometheus's default buckets, 5 ms to 10 s.
var requestBucketSeconds = [...]float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// requestBuckets are the same bounds as durations, so that an observation
// is placed by comparing integers.
var requestBuckets = func() (out [len(requestBucketSeconds)]time.Duration) {
	for i, s := range requestBucketSeconds {
		out[i] = time.Duration(math.Round(s * float64(time.Second)))
	}
	return out
}()

// stripeSize is a requestStripe's counters, in bytes.
const stripeSize = (len(requestBucketSeconds) + 2) * 8

// requestHistogram is http_server_request_duration_seconds. Every request
// records into it, from every CPU at once, and client_golang's histogram
// keeps one set of counters per series: on two CPUs under the read
// benchmark its shared cache lines made an observation 140-240 ns instead
// of 60 (issue 24). Here each series keeps its counts in stripes a cache
// line apart, an observation adds to a stripe picked at random, and a
// scrape sums them.
type requestHistogram struct {
	desc    *prometheus.Desc
	stripes int // a power of two
	series  sync.Map
}

// requestSeries names one series of the request histogram.
type requestSeries struct {
	method, route string
	status        int
}

// requestCounts are one series' stripes.
type requestCounts struct {
	labels  [3]string // method, route, status
	stripes []requestStripe
}

// requestStripe is a stripe: a count per bucket (the last is +Inf; the
// series' count is their total, so a scrape never sees buckets and count
// disagree) and the sum of the observed seconds. Padded to two cache
// lines so that neighbouring stripes share none.
type requestStripe struct {
	buckets [len(requestBucketSeconds) + 1]atomic.Uint64
	sum     atomic.Uint64 // float64 bits
	_       [(128 - stripeSize%128) % 128]byte
}

func newRequestHistogram() *requestHistogram {
	return &requestHistogram{
		desc: prometheus.NewDesc("http_server_request_duration_seconds",
			"Time to answer HTTP requests, by method, matched route pattern and status.",
			[]string{"method", "route", "status"}, nil),
		// Twice the CPUs, so that two requests observed at once rarely
		// meet in one stripe; at most 32.
		stripes: 1 << min(bits.Len(uint(2*runtime.GOMAXPROCS(0)-1)), 5),
	}
}

// observe records one request. method and route are kept as labels.
func (h *requestHistogram) observe(method, route string, status int, took time.Duration) {
	k := requestSeries{method, route, status}
	v, ok := h.series.Load(k)
	if !ok {
		v, _ = h.series.LoadOrStore(k, &requestCounts{
			labels:  [3]string{method, route, strconv.Itoa(status)},
			stripes: make([]requestStripe, h.stripes),
		})
	}
	s := &v.(*requestCounts).stripes[rand.Uint32()&uint32(h.stripes-1)]
	i := 0
	for i < len(requestBuckets) && took > requestBuckets[i] {
		i++
	}
	s.buckets[i].Add(1)
	for {
		old := s.sum.Load()
		if s.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+took.Seconds())) {
			return
		}
	}
}

func (h *requestHistogram) Describe(ch chan<- *prometheus.Desc) { ch <- h.desc }

func (h *requestHistogram) Collect(ch chan<- prometheus.Metric) {
	h.series.Range(func(_, v any) bool {
		c := v.(*requestCounts)
		var counts [len(requestBucketSeconds) + 1]uint64
		var sum float64
		for i := range c.stripes {
			s := &c.stripes[i]
			for b := range s.buckets {
				counts[b] += s.buckets[b].Load()
			}
			sum += math.Float64frombits(s.sum.Load())
		}
		cumulative := make(map[float64]uint64, len(requestBucketSeconds))
		var total uint64
		for b, upper := range requestBucketSeconds {
			total += counts[b]
			cumulative[upper] = total
		}
		total += counts[len(requestBucketSeconds)]
		ch <- prometheus.MustNewConstHistogram(h.desc, total, sum, cumulative, c.labels[:]...)
		return true
	})
}

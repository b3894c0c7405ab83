package ratelimit

import (
	"context"
	"testing"
	"time"
)

// step advances the clock, makes one request and expects exactly want.
type step struct {
	advance time.Duration
	key     string // "" means "k"
	want    Result
}

func ok(limit, remaining int, reset time.Duration) Result {
	return Result{Allowed: true, Limit: limit, Remaining: remaining, ResetAfter: reset}
}

func rejected(limit int, reset, retry time.Duration) Result {
	return Result{Limit: limit, ResetAfter: reset, RetryAfter: retry}
}

var (
	apiQuota    = Quota{Rate: time.Second, Burst: 5}
	launchQuota = Quota{Rate: 12 * time.Second, Burst: 1}
)

// scenarios is shared by the memory and Redis limiters: both must give the
// same answers, exact to the nanosecond.
var scenarios = []struct {
	name  string
	quota Quota
	steps []step
}{
	{"api burst then reject", apiQuota, []step{
		{want: ok(5, 4, 1*time.Second)},
		{want: ok(5, 3, 2*time.Second)},
		{want: ok(5, 2, 3*time.Second)},
		{want: ok(5, 1, 4*time.Second)},
		{want: ok(5, 0, 5*time.Second)},
		{want: rejected(5, 5*time.Second, time.Second)},
		{advance: 400 * time.Millisecond, want: rejected(5, 4600*time.Millisecond, 600*time.Millisecond)},
	}},
	{"api refills one token per second", apiQuota, []step{
		{want: ok(5, 4, 1*time.Second)},
		{want: ok(5, 3, 2*time.Second)},
		{want: ok(5, 2, 3*time.Second)},
		{want: ok(5, 1, 4*time.Second)},
		{want: ok(5, 0, 5*time.Second)},
		{advance: time.Second, want: ok(5, 0, 5*time.Second)},
		{want: rejected(5, 5*time.Second, time.Second)},
		{advance: 999 * time.Millisecond, want: rejected(5, 4001*time.Millisecond, time.Millisecond)},
		{advance: time.Millisecond, want: ok(5, 0, 5*time.Second)},
		{advance: 2500 * time.Millisecond, want: ok(5, 1, 3500*time.Millisecond)},
		{want: ok(5, 0, 4500*time.Millisecond)},
		{want: rejected(5, 4500*time.Millisecond, 500*time.Millisecond)},
	}},
	{"api bucket full again after reset", apiQuota, []step{
		{want: ok(5, 4, 1*time.Second)},
		{want: ok(5, 3, 2*time.Second)},
		{advance: 2 * time.Second, want: ok(5, 4, 1*time.Second)},
		{advance: time.Hour, want: ok(5, 4, 1*time.Second)},
	}},
	{"launch one per 12s", launchQuota, []step{
		{want: ok(1, 0, 12*time.Second)},
		{want: rejected(1, 12*time.Second, 12*time.Second)},
		{advance: 5 * time.Second, want: rejected(1, 7*time.Second, 7*time.Second)},
		{advance: 7*time.Second - 1, want: rejected(1, 1, 1)},
		{advance: 1, want: ok(1, 0, 12*time.Second)},
		{advance: 30 * time.Second, want: ok(1, 0, 12*time.Second)},
	}},
	{"keys are independent", launchQuota, []step{
		{key: "a", want: ok(1, 0, 12*time.Second)},
		{key: "a", want: rejected(1, 12*time.Second, 12*time.Second)},
		{key: "b", want: ok(1, 0, 12*time.Second)},
		{advance: 6 * time.Second, key: "c", want: ok(1, 0, 12*time.Second)},
		{key: "a", want: rejected(1, 6*time.Second, 6*time.Second)},
		{key: "c", want: rejected(1, 12*time.Second, 12*time.Second)},
	}},
}

// runScenarios drives every scenario through a limiter built by mk with a
// fresh fake clock; keys are prefixed per scenario so shared stores (Redis)
// do not mix them up.
func runScenarios(t *testing.T, mk func(t *testing.T, q Quota, c *fakeClock) Limiter) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			clock := newFakeClock()
			l := mk(t, sc.quota, clock)
			for i, s := range sc.steps {
				clock.Advance(s.advance)
				key := s.key
				if key == "" {
					key = "k"
				}
				got, err := l.Allow(context.Background(), sc.name+"/"+key)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if got != s.want {
					t.Errorf("step %d (key %s):\n got  %+v\n want %+v", i, key, got, s.want)
				}
			}
		})
	}
}

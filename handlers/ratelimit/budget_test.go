package ratelimit

import (
	"context"
	"testing"
	"time"
)

// A budget is spent several units at a time, all or none: a spend larger
// than what is left takes nothing and says when it would fit.
func TestBudgetSpendsAllOrNone(t *testing.T) {
	clock := newFakeClock()
	b, err := NewMemoryBudget(Quota{Rate: time.Minute, Burst: 30}, WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spend := func(n int) Result {
		t.Helper()
		res, err := b.Spend(ctx, "account", n)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := spend(25); !res.Allowed || res.Remaining != 5 {
		t.Fatalf("first 25 of 30: %+v", res)
	}
	res := spend(25)
	if res.Allowed || res.RetryAfter != 20*time.Minute {
		t.Fatalf("25 more with 5 left: %+v, want refused until 20 more have refilled", res)
	}
	if res := spend(5); !res.Allowed { // the refusal took nothing
		t.Fatalf("the 5 left: %+v", res)
	}
	if _, err := b.Spend(ctx, "other", 30); err != nil {
		t.Fatal(err)
	}
	clock.Advance(25 * time.Minute)
	if res := spend(25); !res.Allowed {
		t.Fatalf("after 25 refilled: %+v", res)
	}
	if res := spend(31); res.Allowed {
		t.Fatalf("more than the burst: %+v", res)
	}
}

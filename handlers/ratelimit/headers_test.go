package ratelimit

import (
	"maps"
	"testing"
	"time"
)

func TestHeaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Result
		want map[string]string
	}{
		{"allowed, no Retry-After", ok(5, 4, time.Second), map[string]string{
			HeaderLimit: "5", HeaderRemaining: "4", HeaderReset: "1",
		}},
		{"reset rounds up", ok(5, 1, 3500*time.Millisecond), map[string]string{
			HeaderLimit: "5", HeaderRemaining: "1", HeaderReset: "4",
		}},
		{"whole seconds stay exact", rejected(1, 12*time.Second, 12*time.Second), map[string]string{
			HeaderLimit: "1", HeaderRemaining: "0", HeaderReset: "12", HeaderRetryAfter: "12",
		}},
		{"retry rounds up", rejected(1, 7*time.Second+1, 7*time.Second+1), map[string]string{
			HeaderLimit: "1", HeaderRemaining: "0", HeaderReset: "8", HeaderRetryAfter: "8",
		}},
		{"sub-second retry is 1", rejected(5, 4600*time.Millisecond, 600*time.Millisecond), map[string]string{
			HeaderLimit: "5", HeaderRemaining: "0", HeaderReset: "5", HeaderRetryAfter: "1",
		}},
		{"retry never 0", rejected(5, 0, 0), map[string]string{
			HeaderLimit: "5", HeaderRemaining: "0", HeaderReset: "0", HeaderRetryAfter: "1",
		}},
	} {
		got := map[string]string{}
		Headers(tc.r, func(k, v string) {
			if _, dup := got[k]; dup {
				t.Errorf("%s: header %s set twice", tc.name, k)
			}
			got[k] = v
		})
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

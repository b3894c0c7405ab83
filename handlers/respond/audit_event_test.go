package respond

import (
	"math"
	"testing"
	"time"
)

// AppendAuditEventTime writes what AuditEvent writes, at every precision,
// zone and year, the four-digit ones written by hand among them.
func TestAppendAuditEventTimeAsFormat(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("east", 5*3600+1800), time.FixedZone("west", -7*3600)}
	times := []time.Time{{}, time.Unix(0, 0), time.Unix(0, 999), time.Unix(0, 1000), time.Unix(1, 999_999_999),
		time.Date(2026, 3, 1, 23, 59, 59, 123456789, zones[1]), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 1000, time.UTC),
		time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC), time.Unix(math.MaxInt32, 0), time.Unix(-math.MaxInt32, 0)}
	for _, at := range times {
		for _, z := range zones {
			checkAuditEventTime(t, at.In(z))
		}
	}
}

func FuzzAppendAuditEventTime(f *testing.F) {
	f.Add(int64(0), int64(0))
	f.Add(int64(1772366399), int64(123456789))
	f.Add(int64(-62135596800), int64(1))
	f.Fuzz(func(t *testing.T, sec, nsec int64) { checkAuditEventTime(t, time.Unix(sec, nsec)) })
}

func checkAuditEventTime(t *testing.T, at time.Time) {
	t.Helper()
	want := at.UTC().Format(auditTimeLayout)
	if got := string(AppendAuditEventTime([]byte("x"), at)); got != "x"+want {
		t.Fatalf("AppendAuditEventTime(%v) = %q, want %q", at, got[1:], want)
	}
}

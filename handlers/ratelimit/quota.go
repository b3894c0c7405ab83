package ratelimit

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Contract defaults, as ParseQuota inputs so that configuration can override
// either part independently.
const (
	DefaultAPISpec     = "1/s"
	DefaultAPIBurst    = 5
	DefaultLaunchSpec  = "1/12s"
	DefaultLaunchBurst = 1
)

// Quota is a sustained rate of one request per Rate, with up to Burst
// requests allowed at once (see the package comment).
type Quota struct {
	Rate  time.Duration // one token is refilled per Rate
	Burst int           // bucket size; 1 means no bursting at all
}

func (q Quota) validate() error {
	if q.Rate <= 0 {
		return fmt.Errorf("ratelimit: rate must be positive, got %v", q.Rate)
	}
	if q.Burst < 1 {
		return fmt.Errorf("ratelimit: burst must be at least 1, got %d", q.Burst)
	}
	// GCRA works with Rate*Burst as a time.Duration; it must not overflow.
	if int64(q.Burst) > math.MaxInt64/int64(q.Rate) {
		return fmt.Errorf("ratelimit: %v times burst %d overflows", q.Rate, q.Burst)
	}
	return nil
}

// String renders the quota for startup logs, e.g. "1/12s burst 1".
func (q Quota) String() string {
	return fmt.Sprintf("1/%v burst %d", q.Rate, q.Burst)
}

// ParseQuota parses a configured rate such as "1/s", "1/12s" or "5/1m"
// (N requests per Go duration; a bare unit means 1 of it) together with the
// burst. "off" (any case) disables the limit: enabled is false and burst is
// ignored, so a disabled limit never fails configuration.
//
// N/D becomes one token per D/N, so "5/1m" with burst 1 means one request
// every 12 s, and "5/1m" with burst 5 means five at once, then one per 12 s.
func ParseQuota(spec string, burst int) (q Quota, enabled bool, err error) {
	s := strings.TrimSpace(spec)
	if strings.EqualFold(s, "off") {
		return Quota{}, false, nil
	}
	num, per, ok := strings.Cut(s, "/")
	if !ok {
		return Quota{}, false, fmt.Errorf("ratelimit: quota %q: want N/duration (e.g. 1/s, 1/12s) or off", spec)
	}
	n, err := parseCount(num)
	if err != nil {
		return Quota{}, false, fmt.Errorf("ratelimit: quota %q: %w", spec, err)
	}
	d, err := parsePeriod(per)
	if err != nil {
		return Quota{}, false, fmt.Errorf("ratelimit: quota %q: %w", spec, err)
	}
	q = Quota{Rate: d / time.Duration(n), Burst: burst}
	if q.Rate <= 0 {
		return Quota{}, false, fmt.Errorf("ratelimit: quota %q: rate finer than 1ns per request", spec)
	}
	if err := q.validate(); err != nil {
		return Quota{}, false, fmt.Errorf("ratelimit: quota %q: %w", spec, err)
	}
	return q, true, nil
}

// parseCount accepts only plain decimal digits: strconv.Atoi would also take
// "+1", and a sign in a rate is more likely a typo than intent.
func parseCount(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("count %q is not a positive integer", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("count %q is not a positive integer", s)
	}
	return n, nil
}

func parsePeriod(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New("missing period")
	}
	if c := s[0]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
		s = "1" + s // a bare unit: "s" means "1s", "µs" means "1µs"
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("period: %w", err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("period %v is not positive", d)
	}
	return d, nil
}

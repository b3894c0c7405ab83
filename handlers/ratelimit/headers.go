package ratelimit

import (
	"strconv"
	"time"
)

// Header names set by Headers.
const (
	HeaderLimit      = "RateLimit-Limit"
	HeaderRemaining  = "RateLimit-Remaining"
	HeaderReset      = "RateLimit-Reset"
	HeaderRetryAfter = "Retry-After"
)

// Headers passes each response header for r to set, so the middleware writes
// them in one place: `ratelimit.Headers(res, c.Set)`. The three RateLimit-*
// headers are always produced; Retry-After only for a rejection.
//
// Durations are rounded up to whole seconds: rounding down would tell a
// client to come back before it is allowed to. Retry-After is at least 1,
// because "0" on a 429 invites an immediate, equally futile retry.
func Headers(r Result, set func(name, value string)) {
	set(HeaderLimit, strconv.Itoa(r.Limit))
	set(HeaderRemaining, strconv.Itoa(r.Remaining))
	set(HeaderReset, strconv.FormatInt(ceilSeconds(r.ResetAfter), 10))
	if !r.Allowed {
		set(HeaderRetryAfter, strconv.FormatInt(max(1, ceilSeconds(r.RetryAfter)), 10))
	}
}

func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return s
}

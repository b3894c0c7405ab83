package webhooks

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"cloudplane/models"
)

// maxRetryAfter caps how long a receiver's Retry-After can hold a delivery.
const maxRetryAfter = 24 * time.Hour

// decide turns an attempt into what happens next: nothing after success;
// 410 Gone disables the endpoint; otherwise a retry after the schedule's
// next wait (jittered), or after Retry-After on 429 and 503; and once the
// schedule is used up, the delivery has failed.
func (d *Dispatcher) decide(job models.DeliveryJob, a models.WebhookAttempt) models.DeliveryDecision {
	if a.Succeeded {
		return models.DeliveryDecision{}
	}
	now := d.store.Now()
	if a.StatusCode == http.StatusGone {
		return models.DeliveryDecision{DisableEndpoint: "the receiver answered 410 Gone at " + now.Format(time.RFC3339)}
	}
	try := job.Tries + 1 // this attempt's place in the schedule
	if try > len(d.cfg.Schedule) {
		return models.DeliveryDecision{}
	}
	wait := d.cfg.Jitter(d.cfg.Schedule[try-1])
	if a.StatusCode == http.StatusTooManyRequests || a.StatusCode == http.StatusServiceUnavailable {
		if after, ok := retryAfter(http.Header(a.ResponseHeaders).Get("Retry-After"), now); ok {
			wait = after
		}
	}
	at := now.Add(wait)
	return models.DeliveryDecision{RetryAt: &at}
}

// retryAfter reads a Retry-After value, in seconds or as an HTTP date,
// into a wait from now, within [0, maxRetryAfter].
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var wait time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		wait = time.Duration(min(max(secs, 0), int64(maxRetryAfter/time.Second))) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		wait = at.Sub(now)
	} else {
		return 0, false
	}
	return min(max(wait, 0), maxRetryAfter), true
}

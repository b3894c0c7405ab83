package webhooks

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"cloudplane/models"
)

// StopRetryingHeader is the header a receiver sets ("true") on a failed
// answer to ask that the event not be retried: the delivery then fails at
// once, logged as stopped, and can still be redelivered by hand.
const StopRetryingHeader = "Webhook-Stop-Retrying"

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
	if stopRequested(a) {
		return models.DeliveryDecision{Stopped: true}
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

// stopRequested reports whether a failed answer asked not to be retried.
func stopRequested(a models.WebhookAttempt) bool {
	v, _ := strconv.ParseBool(strings.TrimSpace(http.Header(a.ResponseHeaders).Get(StopRetryingHeader)))
	return v && a.StatusCode > 0
}

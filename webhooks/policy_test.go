package webhooks

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"code.dny.dev/ssrf"

	"cloudplane/models"
	"cloudplane/models/modelstest"
)

// The example of the Standard Webhooks specification signs to this value.
func TestSignMatchesTheSpecificationExample(t *testing.T) {
	got, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330",
		[]byte(`{"test": 2432232314}`))
	if err != nil || got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Fatalf("%q, %v", got, err)
	}
	if _, err := Sign("whsec_not base64!", "id", "1", nil); err == nil {
		t.Fatal("a corrupt secret signed")
	}
}

func TestJitterStaysWithinTwentyPercent(t *testing.T) {
	const base = 5 * time.Minute
	var below, above bool
	for i := 0; i < 10000; i++ {
		d := jitter(base)
		if d < base*8/10 || d > base*12/10 {
			t.Fatalf("jitter(%v) = %v", base, d)
		}
		below, above = below || d < base*9/10, above || d > base*11/10
	}
	if !below || !above {
		t.Fatal("jitter does not spread both ways")
	}
}

// The schedule, computed on the injected clock: the wait before retry n is
// schedule[n-1]; after the last, the delivery gives up. Retry-After
// replaces the wait on 429 and 503 only; 410 disables the endpoint.
func TestDecideFollowsTheSchedule(t *testing.T) {
	clock := modelstest.NewClock()
	d := New(modelstest.Open(t, models.WithClock(clock.Now)), Config{Jitter: func(d time.Duration) time.Duration { return d }})
	now := clock.Now()
	for tries, wait := range DefaultSchedule {
		dec := d.decide(models.DeliveryJob{Tries: tries}, models.WebhookAttempt{StatusCode: 500})
		if dec.RetryAt == nil || !dec.RetryAt.Equal(now.Add(wait)) {
			t.Fatalf("after attempt %d: retry at %v, want %v", tries+1, dec.RetryAt, now.Add(wait))
		}
	}
	last := len(DefaultSchedule)
	if dec := d.decide(models.DeliveryJob{Tries: last}, models.WebhookAttempt{StatusCode: 500}); dec.RetryAt != nil {
		t.Fatalf("attempt %d of %d retried", last+1, last+1)
	}
	header := func(v string) map[string][]string { return map[string][]string{"Retry-After": {v}} }
	cases := []struct {
		name   string
		a      models.WebhookAttempt
		want   time.Duration
		gives  bool
		retire bool
	}{
		{"429 seconds", models.WebhookAttempt{StatusCode: 429, ResponseHeaders: header("30")}, 30 * time.Second, false, false},
		{"503 date", models.WebhookAttempt{StatusCode: 503, ResponseHeaders: header(now.Add(time.Hour).Format(http.TimeFormat))}, time.Hour, false, false},
		{"503 unreadable", models.WebhookAttempt{StatusCode: 503, ResponseHeaders: header("soon")}, 5 * time.Second, false, false},
		{"500 ignores Retry-After", models.WebhookAttempt{StatusCode: 500, ResponseHeaders: header("30")}, 5 * time.Second, false, false},
		{"429 capped at a day", models.WebhookAttempt{StatusCode: 429, ResponseHeaders: header("999999999")}, 24 * time.Hour, false, false},
		{"410 disables", models.WebhookAttempt{StatusCode: 410}, 0, true, true},
		{"success", models.WebhookAttempt{StatusCode: 200, Succeeded: true}, 0, true, false},
	}
	for _, tc := range cases {
		dec := d.decide(models.DeliveryJob{}, tc.a)
		switch {
		case tc.gives && dec.RetryAt != nil:
			t.Errorf("%s: retried", tc.name)
		case !tc.gives && (dec.RetryAt == nil || !dec.RetryAt.Equal(now.Add(tc.want))):
			t.Errorf("%s: retry at %v, want %v", tc.name, dec.RetryAt, now.Add(tc.want))
		case tc.retire != (dec.DisableEndpoint != ""):
			t.Errorf("%s: disable %q", tc.name, dec.DisableEndpoint)
		}
	}
}

func TestClassify(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	cases := []struct {
		err  error
		kind string
	}{
		{&net.DNSError{Err: "no such host", Name: "hooks.example", IsNotFound: true}, KindDNS},
		{refused, KindRefused},
		{fmt.Errorf("post: %w", context.DeadlineExceeded), KindTimeout},
		{x509.UnknownAuthorityError{}, KindTLS},
		{&net.OpError{Op: "dial", Err: fmt.Errorf("%w: 10.0.0.1", ssrf.ErrProhibitedIP)}, KindBlocked},
		{fmt.Errorf("connection reset"), KindNetwork},
	}
	for _, tc := range cases {
		if kind, _ := classify(tc.err); kind != tc.kind {
			t.Errorf("%v: %s, want %s", tc.err, kind, tc.kind)
		}
	}
}

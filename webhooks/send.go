package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"cloudplane/models"
	"cloudplane/webhooks/netguard"
)

// Error kinds of an attempt, as the delivery log classifies them.
const (
	KindDNS      = "dns"
	KindRefused  = "refused"
	KindTimeout  = "timeout"
	KindTLS      = "tls"
	KindBlocked  = "blocked" // the SSRF guard or the https rule refused it
	KindNetwork  = "network"
	KindRedirect = "redirect"
	KindHTTP     = "http"    // an answer outside 2xx
	KindStopped  = "stopped" // a failed answer that asked not to be retried
)

// send makes one attempt of job and reports what happened. Success is a
// 2xx answer within the timeout; anything else is a failure with a kind.
func (d *Dispatcher) send(ctx context.Context, job models.DeliveryJob) models.WebhookAttempt {
	a := models.WebhookAttempt{URL: job.URL, StartedAt: d.store.Now(), ResponseHeaders: map[string][]string{}}
	ts := strconv.FormatInt(a.StartedAt.Unix(), 10)
	sig, err := SignatureHeader(signingSecrets(job, a.StartedAt), job.EventID, ts, []byte(job.Payload))
	if err != nil {
		a.ErrorKind, a.Error = KindNetwork, err.Error()
		return a
	}
	header := http.Header{}
	// The owner's own headers first: models refuses the names set below,
	// and setting those after would win anyway.
	for _, h := range job.Headers {
		header.Set(h.Name, h.Value)
	}
	header.Set("Content-Type", "application/json")
	header.Set("User-Agent", "cloudplane-webhooks/"+d.cfg.Version)
	header.Set("Authorization", "Bearer "+job.Token)
	header.Set("webhook-id", job.EventID)
	header.Set("webhook-timestamp", ts)
	header.Set("webhook-signature", sig)
	a.RequestHeaders = maskedHeaders(header)

	if u, err := url.Parse(job.URL); err != nil || (u.Scheme != "https" && !d.cfg.AllowPrivate) {
		a.ErrorKind, a.Error = KindBlocked, errNotHTTPS.Error()
		return a
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	var remote atomic.Pointer[string]
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		addr := info.Conn.RemoteAddr().String()
		remote.Store(&addr)
	}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, job.URL, bytes.NewReader([]byte(job.Payload)))
	if err != nil {
		a.ErrorKind, a.Error = KindBlocked, err.Error()
		return a
	}
	req.Header = header
	res, err := d.client.Do(req)
	if addr := remote.Load(); addr != nil {
		a.RemoteAddr = *addr
	}
	if err != nil {
		a.Duration = time.Since(start)
		a.ErrorKind, a.Error = classify(err)
		return a
	}
	defer res.Body.Close()
	d.capture(&a, res)
	a.Duration = time.Since(start)
	return a
}

// Bounds on the receiver's words quoted in an attempt's error.
const (
	maxQuotedStatus   = 128
	maxQuotedLocation = 512
)

// capture records the answer: status, headers and at most MaxCapturedBody
// bytes of the body, and judges it. The headers are bounded by the
// transport, and cut further when the attempt is stored.
func (d *Dispatcher) capture(a *models.WebhookAttempt, res *http.Response) {
	a.StatusCode, a.ResponseHeaders = res.StatusCode, res.Header
	body, _ := io.ReadAll(io.LimitReader(res.Body, models.MaxCapturedBody+1))
	if len(body) > models.MaxCapturedBody {
		body, a.BodyTruncated = body[:models.MaxCapturedBody], true
	}
	a.ResponseBody = body
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		a.Succeeded = true
	case res.StatusCode >= 300 && res.StatusCode < 400:
		a.ErrorKind = KindRedirect
		a.Error = fmt.Sprintf("HTTP %d redirect to %q not followed", res.StatusCode,
			models.Clip(res.Header.Get("Location"), maxQuotedLocation))
	default:
		a.ErrorKind, a.Error = KindHTTP, "HTTP "+models.Clip(res.Status, maxQuotedStatus)
	}
}

// maskedHeaders is the request's headers as the log keeps them: the
// bearer token cut to its recognisable start.
func maskedHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for name := range h {
		out[name] = h.Get(name)
	}
	if token, ok := strings.CutPrefix(out["Authorization"], "Bearer "); ok {
		out["Authorization"] = "Bearer " + models.MaskToken(token)
	}
	return out
}

// classify names what kind of network failure err is, for the log.
func classify(err error) (kind, msg string) {
	var dns *net.DNSError
	var netErr net.Error
	var certInvalid x509.CertificateInvalidError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case netguard.Blocked(err):
		kind = KindBlocked
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		kind = KindTimeout
	case errors.As(err, &dns):
		kind = KindDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		kind = KindRefused
	case errors.As(err, &verify), errors.As(err, &certInvalid), errors.As(err, &unknownAuthority),
		errors.As(err, &hostname), errors.As(err, &record), errors.As(err, &alert):
		kind = KindTLS
	default:
		kind = KindNetwork
	}
	return kind, models.Clip(describe(err), models.MaxErrorText)
}

// maxQuotedURL bounds the URL quoted in an error: the attempt keeps the
// whole URL anyway, and a long one would push the cause out of the text.
const maxQuotedURL = 128

// describe is err's text with the URL it quotes shortened.
func describe(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Sprintf("%s %q: %v", ue.Op, models.Clip(ue.URL, maxQuotedURL), ue.Err)
	}
	return err.Error()
}

package webhooks

import (
	"errors"
	"net"
	"net/http"
	"time"

	"cloudplane/models"
	"cloudplane/webhooks/netguard"
)

// errNotHTTPS refuses plain http when private destinations are not allowed:
// a webhook carries a bearer token and ticket contents.
var errNotHTTPS = errors.New("webhook URLs must use https")

// maxResponseHeaderBytes bounds the status line and headers read from a
// receiver (Go's default is 10 MB); a larger answer fails the attempt
// before it is held in memory. It is twice what the log keeps
// (models.MaxStoredHeaderBytes), so a receiver with a few large headers
// still gets its 2xx counted; the excess is cut when the attempt is stored.
const maxResponseHeaderBytes = 2 * models.MaxStoredHeaderBytes

// newClient builds the HTTP client deliveries go through. Unless
// AllowPrivate, its dialer checks every address it is about to connect to
// (netguard.Control, the registries the save-time check uses). Redirects are never followed and no proxy is
// used, so nothing connects on the dispatcher's behalf past the guard.
func newClient(cfg Config) *http.Client {
	dialer := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivate {
		dialer.Control = netguard.Control
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
		// Idle connections stay within the descriptors cmd/cloudplane
		// keeps beside client connections (fdReserve) at the default
		// workers: at most Workers busy plus 2*Workers idle.
		MaxIdleConns:        2 * cfg.Workers,
		MaxIdleConnsPerHost: cfg.Workers,
		IdleConnTimeout:     90 * time.Second,
	}
	return &http.Client{
		Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

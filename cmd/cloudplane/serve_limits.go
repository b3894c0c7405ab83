package main

import (
	"errors"
	"flag"
	"time"

	"cloudplane/handlers"
	"cloudplane/handlers/api"
)

// limitFlags bound what a request, a connection and the shutdown may
// take, so that neither a database that stops answering nor clients that
// hold connections open can stop the server from serving or stopping.
type limitFlags struct {
	requestTimeout, shutdownTimeout time.Duration
	readTimeout, idleTimeout        time.Duration
	maxConns, maxConnsPerIP         int
	maxInFlight, maxUploads         int
	uploadProgressTimeout           time.Duration
}

func (f *limitFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.requestTimeout, "request-timeout", handlers.DefaultRequestTimeout, "time a request may take, database calls included; then 503")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 20*time.Second, "time SIGTERM gives in-flight requests before the process exits anyway")
	fs.DurationVar(&f.readTimeout, "read-timeout", handlers.DefaultReadTimeout, "time a client has to send a request's header and body")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", handlers.DefaultIdleTimeout, "time a kept-alive connection may wait for its next request")
	fs.IntVar(&f.maxConns, "max-connections", 10000, "connections open at once; more wait to be accepted (lowered to fit the file descriptor limit)")
	fs.IntVar(&f.maxInFlight, "max-in-flight", 0, "requests served at once; more wait their turn within --request-timeout (0: 16 per CPU)")
	fs.IntVar(&f.maxUploads, "max-uploads", api.DefaultUploadsInFlight, "attachment upload bodies received at once; more wait their turn within --request-timeout, then 503")
	fs.DurationVar(&f.uploadProgressTimeout, "upload-progress-timeout", api.DefaultUploadProgressTimeout, "time an attachment upload's body may go without a byte arriving; then it fails and gives its turn back")
	fs.IntVar(&f.maxConnsPerIP, "max-connections-per-ip", 256, "connections one client address (IPv4 or IPv6) may hold open; more are answered 429 and closed (0: no cap)")
}

func (f *limitFlags) validate() error {
	switch {
	case f.requestTimeout <= 0:
		return errors.New("--request-timeout must be positive")
	case f.shutdownTimeout <= 0:
		return errors.New("--shutdown-timeout must be positive")
	case f.readTimeout <= 0 || f.idleTimeout <= 0:
		return errors.New("--read-timeout and --idle-timeout must be positive")
	case f.maxConns < 1:
		return errors.New("--max-connections must be at least 1")
	case f.maxUploads < 1:
		return errors.New("--max-uploads must be at least 1")
	case f.uploadProgressTimeout <= 0:
		return errors.New("--upload-progress-timeout must be positive")
	case f.maxInFlight < 0:
		return errors.New("--max-in-flight must not be negative")
	case f.maxConnsPerIP < 0:
		return errors.New("--max-connections-per-ip must not be negative")
	}
	return nil
}

// drainPeriod is the part of the shutdown timeout in-flight requests get;
// the rest is for cancelling them, stopping the webhook dispatcher and
// closing the database.
func (f *limitFlags) drainPeriod() time.Duration {
	return f.shutdownTimeout - min(f.shutdownTimeout/4, 5*time.Second)
}

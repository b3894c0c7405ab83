package main

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"cloudplane/handlers/testserver"
)

// server is the `cloudplane serve` process the run started, through the
// launcher the tests use.
type server struct {
	*testserver.Server
	base string

	stopOnce sync.Once
	stopped  []string // what stop found

	claimFailures atomic.Int64 // log lines of failed webhook claims
}

// logTailLines is how much of the server's log a failed run shows.
const logTailLines = 40

// startServer runs `bin serve` on 127.0.0.1 port 0 on the database dsn
// with args, writes its log to logPath, and returns once it answers
// /healthz (bounded by wait).
func startServer(bin, logPath, dsn string, args []string, wait time.Duration) (*server, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	s := &server{}
	srv, err := testserver.Launch(testserver.Options{Binary: bin, Database: dsn, Args: args,
		LogFile: logFile, OnLine: s.countLine, TailLines: logTailLines, Timeout: wait})
	if srv == nil {
		_ = logFile.Close()
		return nil, err
	}
	go func() { <-srv.Done(); _ = logFile.Close() }() // done: its log is read to the end
	s.Server, s.base = srv, srv.URL
	return s, err
}

// countLine counts a line of the server's log that is a failed claim.
func (s *server) countLine(line string) {
	if countsAsClaimFailure(line) {
		s.claimFailures.Add(1)
	}
}

// logTail is the last lines of the server's log.
func (s *server) logTail() string { return s.Logs() }

// stop sends SIGTERM and waits up to grace for the server to drain and
// exit, then kills it. It returns what was wrong with the way it ended:
// it had ended already, it had to be killed, or it exited non-zero.
// Calls after the first return the first one's findings.
func (s *server) stop(grace time.Duration) []string {
	s.stopOnce.Do(func() { s.stopped = s.terminate(grace) })
	return s.stopped
}

func (s *server) terminate(grace time.Duration) []string {
	select {
	case <-s.Done():
		return []string{fmt.Sprintf("the server ended during the run (%v)", s.Err())}
	default:
	}
	if err := s.Terminate(grace); err != nil {
		return []string{err.Error()}
	}
	return nil
}

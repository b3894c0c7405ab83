package main

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"cloudplane/handlers/testserver"
	"cloudplane/models/modelstest"
)

// The access log is on by default and its last lines are written when the
// server stops, however recent; --access-log=false (or
// CLOUDPLANE_ACCESS_LOG=false) drops the access lines and nothing else.
func TestAccessLogFlag(t *testing.T) {
	dsn := modelstest.DSN(t)
	for _, tc := range []struct {
		name   string
		args   []string
		env    []string
		logged bool
	}{
		{"default", nil, nil, true},
		{"flag off", []string{"--access-log=false"}, nil, false},
		{"environment off", nil, []string{"CLOUDPLANE_ACCESS_LOG=false"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{Database: dsn, Args: tc.args, Env: tc.env})
			get(t, s.URL+"/livez?from="+strings.ReplaceAll(tc.name, " ", "-"), http.StatusOK)
			if code := s.Stop(t, syscall.SIGTERM, 30*time.Second); code != 0 {
				t.Fatalf("exit code %d\n%s", code, s.Logs())
			}
			logs := s.Logs()
			line := "msg=request method=GET path=/livez"
			if got := strings.Contains(logs, line); got != tc.logged {
				t.Fatalf("access line %q logged: %v, want %v\n%s", line, got, tc.logged, logs)
			}
			if !strings.Contains(logs, "cloudplane listening") || !strings.Contains(logs, "shutting down") {
				t.Fatalf("other lines missing:\n%s", logs)
			}
		})
	}
}

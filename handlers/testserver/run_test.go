package testserver

import (
	"context"
	"errors"
	"testing"
	"time"
)

// RunContext returns what the command printed and its exit status, and
// an error only when the command could not run or its context ended it.
func TestRunContextReportsOutputStatusAndDeadline(t *testing.T) {
	stdout, stderr, code, err := RunContext(context.Background(), "sh", []string{"GREETING=hi"},
		"-c", `echo "$GREETING"; echo oops >&2; exit 3`)
	if err != nil || code != 3 || stdout != "hi\n" || stderr != "oops\n" {
		t.Errorf("RunContext = %q, %q, %d, %v; want \"hi\\n\", \"oops\\n\", 3, nil", stdout, stderr, code, err)
	}
	if _, _, code, err := RunContext(context.Background(), "true", nil); err != nil || code != 0 {
		t.Errorf("a command that succeeds: code %d, err %v; want 0, nil", code, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, _, err := RunContext(ctx, "sleep", nil, "10"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a command past its deadline: err %v, want context.DeadlineExceeded", err)
	}
	if _, _, _, err := RunContext(context.Background(), "/nonexistent/cloudplane", nil); err == nil {
		t.Error("a binary that does not exist: no error")
	}
}

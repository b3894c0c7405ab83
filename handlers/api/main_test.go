package api_test

import (
	"os"
	"testing"
)

// TestMain removes the shared benchmark database after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	closeAuditBench()
	os.Exit(code)
}

package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestRequestIDFromContext(t *testing.T) {
	var buf bytes.Buffer
	log, err := NewLogger(&buf, "json", "info")
	if err != nil {
		t.Fatal(err)
	}
	ctx := withRequestID(context.Background(), "req-1")
	log.With("component", "x").InfoContext(ctx, "served")
	log.Info("no request")
	log.DebugContext(ctx, "below the level")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", lines)
	}
	var first, second map[string]any
	if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil {
		t.Fatalf("not JSON: %q", lines)
	}
	if first["request_id"] != "req-1" || first["component"] != "x" {
		t.Fatalf("first line %v", first)
	}
	if _, ok := second["request_id"]; ok {
		t.Fatalf("a line without a request has an id: %v", second)
	}
}

func TestNewRefusesUnknownSettings(t *testing.T) {
	if _, err := NewLogger(&bytes.Buffer{}, "xml", "info"); err == nil || !strings.Contains(err.Error(), "--log-format") {
		t.Fatalf("format xml: %v", err)
	}
	if _, err := NewLogger(&bytes.Buffer{}, "text", "loud"); err == nil || !strings.Contains(err.Error(), "--log-level") {
		t.Fatalf("level loud: %v", err)
	}
}

// Wrapping twice would add request_id twice.
func TestContextualIsIdempotent(t *testing.T) {
	var buf bytes.Buffer
	log := Contextual(Contextual(slog.New(slog.NewTextHandler(&buf, nil))))
	log.InfoContext(withRequestID(context.Background(), "r"), "m")
	if n := strings.Count(buf.String(), "request_id="); n != 1 {
		t.Fatalf("request_id %d times in %q", n, buf.String())
	}
}

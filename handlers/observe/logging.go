package observe

import (
	"context"
	"fmt"
	"io"
	"log/slog"
)

// NewLogger returns the server's logger, writing to w in format ("text"
// or "json") at level ("debug", "info", "warn" or "error"), with request
// ids from the context.
func NewLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler
	switch format {
	case "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, fmt.Errorf("--log-format: %q is neither text nor json", format)
	}
	return slog.New(contextHandler{inner: h, access: newAccessOutput(w, format == "json")}), nil
}

// Contextual returns l with request ids read from the context of each
// line (InfoContext and the like). Loggers it already wraps come back as
// they are, so every layer may call it.
func Contextual(l *slog.Logger) *slog.Logger {
	if _, ok := l.Handler().(contextHandler); ok {
		return l
	}
	return slog.New(contextHandler{inner: l.Handler()})
}

type requestIDKey struct{}

// withRequestID returns ctx carrying the id of the request it serves: a
// line logged with that context carries the id, whoever logs it.
func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// requestIDOf is the id withRequestID put in ctx, or "".
func requestIDOf(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// contextHandler adds request_id to records logged with a request's
// context. Its Handle runs before the inner handler writes anything, so
// it cannot be forgotten by a caller the way an attribute can.
//
// A logger made by NewLogger also knows its output and format (access),
// so that the access log can write its lines there itself, as the inner
// handler would but without its per-record cost. Loggers derived with
// With or WithGroup, and loggers from elsewhere, log access lines
// through slog.
type contextHandler struct {
	inner  slog.Handler
	access *accessOutput
}

func (h contextHandler) Enabled(ctx context.Context, lv slog.Level) bool {
	return h.inner.Enabled(ctx, lv)
}

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := requestIDOf(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.inner.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return contextHandler{inner: h.inner.WithAttrs(as)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{inner: h.inner.WithGroup(name)}
}

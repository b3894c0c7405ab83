package observe

import (
	"io"
	"sync"
	"time"
)

// Defaults for NewLogWriter: access lines are written in batches of up to
// 64 KiB, and none waits more than 200 ms for its batch.
const (
	DefaultLogBuffer = 64 << 10
	DefaultLogFlush  = 200 * time.Millisecond
)

// LogWriter is the server's log output. Access lines, one per request,
// are buffered and written in batches, when the buffer is full or every
// interval, so that a loaded server makes one write system call per
// batch, not one per request. Anything else written to it (slog's lines:
// warnings, errors, startup) is written at once, after the access lines
// buffered before it, so lines keep their order and nothing important
// waits for a timer.
//
// Close writes what is buffered; the server calls it on shutdown. Lines
// buffered when the process dies abruptly (SIGKILL) are lost, at most an
// interval's worth.
type LogWriter struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte
	limit int

	stop chan struct{}
	done chan struct{}
}

// NewLogWriter returns a LogWriter on w that writes its access lines when
// size bytes are buffered, and every interval otherwise.
func NewLogWriter(w io.Writer, size int, every time.Duration) *LogWriter {
	l := &LogWriter{w: w, buf: make([]byte, 0, size+4096), limit: size,
		stop: make(chan struct{}), done: make(chan struct{})}
	go l.flushEvery(every)
	return l
}

func (l *LogWriter) flushEvery(every time.Duration) {
	defer close(l.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = l.Flush()
		case <-l.stop:
			return
		}
	}
}

// Write writes p now, after the buffered access lines.
func (l *LogWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 {
		return l.w.Write(p)
	}
	l.buf = append(l.buf, p...)
	if err := l.flushLocked(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// appendLine buffers an access line, and writes the buffer once it is full.
func (l *LogWriter) appendLine(line []byte) {
	l.mu.Lock()
	l.buf = append(l.buf, line...)
	if len(l.buf) >= l.limit {
		_ = l.flushLocked()
	}
	l.mu.Unlock()
}

// Flush writes the buffered lines.
func (l *LogWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flushLocked()
}

func (l *LogWriter) flushLocked() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.w.Write(l.buf)
	// A buffer that once grew past its size (a burst of long lines) is
	// not kept at that size.
	if cap(l.buf) > 4*(l.limit+4096) {
		l.buf = make([]byte, 0, l.limit+4096)
	} else {
		l.buf = l.buf[:0]
	}
	return err
}

// Close stops the timer and writes what is buffered. Lines written after
// Close are written at once.
func (l *LogWriter) Close() error {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limit = 0 // from now on every access line is written at once
	return l.flushLocked()
}

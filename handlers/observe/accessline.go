package observe

import (
	"io"
	"log/slog"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// accessLine is one request's access-log line. It encodes itself exactly
// as slog's TextHandler and JSONHandler write the record
//
//	log.LogAttrs(ctx, slog.LevelInfo, "request", method, path, route,
//		status, duration_ms, bytes, client[, account_id]) + request_id
//
// (the test compares them byte for byte), but appends to a caller's
// buffer without allocating: the access log costs no garbage per request.
type accessLine struct {
	at                  time.Time
	method, path, route string
	status              int
	took                time.Duration
	bytes               int
	client              netip.Addr // the client's address; when not valid, clientName
	clientName          string
	account, requestID  string
}

// durationMS is the line's duration_ms: milliseconds to the microsecond.
func (a *accessLine) durationMS() float64 { return float64(a.took.Microseconds()) / 1000 }

// maxDecimalMicros bounds the durations appendDurationMS writes itself:
// from 10^6 ms on, slog's text writes an exponent.
const maxDecimalMicros = 1_000_000_000

// appendDurationMS appends the duration in milliseconds as both slog
// handlers write durationMS below 10^6 ms (strconv's shortest float is
// exactly the decimal there): the whole milliseconds, then up to three
// digits of the fraction without trailing zeros. It skips strconv's
// shortest-float search, a third of the line's cost. ok is false for a
// duration it leaves to the caller.
func appendDurationMS(b []byte, took time.Duration) (_ []byte, ok bool) {
	us := took.Microseconds()
	if us < 0 || us >= maxDecimalMicros {
		return b, false
	}
	b = strconv.AppendInt(b, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return b, true
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...), true
}

// appendClientText appends the client as slog's TextHandler writes it. A
// formatted address needs quoting only for an odd IPv6 zone.
func (a *accessLine) appendClientText(b []byte) []byte {
	if !a.client.IsValid() {
		return appendTextString(b, a.clientName)
	}
	n := len(b)
	b = a.client.AppendTo(b)
	if a.client.Zone() != "" && textNeedsQuoting(string(b[n:])) {
		return strconv.AppendQuote(b[:n], a.client.String())
	}
	return b
}

// appendClientJSON appends the client as slog's JSONHandler writes it
// (without the quotes).
func (a *accessLine) appendClientJSON(b []byte) []byte {
	if !a.client.IsValid() {
		return appendJSONString(b, a.clientName)
	}
	if a.client.Zone() != "" {
		return appendJSONString(b, a.client.String())
	}
	return a.client.AppendTo(b)
}

// appendText appends the line as slog's TextHandler writes it.
func (a *accessLine) appendText(b []byte) []byte {
	b = append(b, "time="...)
	b = appendRFC3339Millis(b, a.at)
	b = append(b, " level=INFO msg=request method="...)
	b = appendTextString(b, a.method)
	b = append(b, " path="...)
	b = appendTextString(b, a.path)
	b = append(b, " route="...)
	b = appendTextString(b, a.route)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(a.status), 10)
	b = append(b, " duration_ms="...)
	if d, ok := appendDurationMS(b, a.took); ok {
		b = d
	} else {
		b = strconv.AppendFloat(b, a.durationMS(), 'g', -1, 64)
	}
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, int64(a.bytes), 10)
	b = append(b, " client="...)
	b = a.appendClientText(b)
	if a.account != "" {
		b = append(b, " account_id="...)
		b = appendTextString(b, a.account)
	}
	if a.requestID != "" {
		b = append(b, " request_id="...)
		b = appendTextString(b, a.requestID)
	}
	return append(b, '\n')
}

// appendJSON appends the line as slog's JSONHandler writes it.
func (a *accessLine) appendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = a.at.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","method":"`...)
	b = appendJSONString(b, a.method)
	b = append(b, `","path":"`...)
	b = appendJSONString(b, a.path)
	b = append(b, `","route":"`...)
	b = appendJSONString(b, a.route)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(a.status), 10)
	b = append(b, `,"duration_ms":`...)
	if d, ok := appendDurationMS(b, a.took); ok {
		b = d
	} else {
		b = appendJSONFloat(b, a.durationMS())
	}
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(a.bytes), 10)
	b = append(b, `,"client":"`...)
	b = a.appendClientJSON(b)
	b = append(b, '"')
	if a.account != "" {
		b = append(b, `,"account_id":"`...)
		b = appendJSONString(b, a.account)
		b = append(b, '"')
	}
	if a.requestID != "" {
		b = append(b, `,"request_id":"`...)
		b = appendJSONString(b, a.requestID)
		b = append(b, '"')
	}
	return append(b, '}', '\n')
}

// appendRFC3339Millis is slog's text time: RFC 3339 with exactly three
// digits of milliseconds. The date, the time to the second and the zone
// are formatted once a second (lastSecond); per line only the
// milliseconds are: time.AppendFormat was 40% of the access line's cost.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	s := lastSecond.Load()
	if s == nil || s.unix != t.Unix() || s.loc != t.Location() {
		if t.Year() < 0 || t.Year() > 9999 { // not 19 bytes to the second
			return appendRFC3339MillisSlowly(b, t)
		}
		s = newSecondStamp(t)
		lastSecond.Store(s)
	}
	ms := t.Nanosecond() / int(time.Millisecond)
	b = append(b, s.head...)
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, s.zone...)
}

// secondStamp is one second of one location, formatted: head up to the
// seconds, zone after the fraction.
type secondStamp struct {
	unix       int64
	loc        *time.Location
	head, zone []byte
}

// lastSecond is the second the last line was logged in. Lines of one
// second share it; it is replaced, never changed, so readers need no lock.
var lastSecond atomic.Pointer[secondStamp]

func newSecondStamp(t time.Time) *secondStamp {
	const headLen = len("2006-01-02T15:04:05")
	full := t.Truncate(time.Second).AppendFormat(make([]byte, 0, 32), time.RFC3339)
	return &secondStamp{unix: t.Unix(), loc: t.Location(), head: full[:headLen], zone: full[headLen:]}
}

// appendRFC3339MillisSlowly formats t whole, for the years a stamp's
// fixed width does not hold.
func appendRFC3339MillisSlowly(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the 4th digit
}

// appendTextString appends s as slog's TextHandler does: bare when it
// can be, quoted (strconv.Quote) when empty or holding a space, '=', '"',
// a control character or a rune that is not printable.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// textQuoted marks the ASCII bytes that make slog's TextHandler quote a
// string: a table, as the scan of every string of every line was a third
// of the line's cost with four comparisons per byte.
var textQuoted = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c == ' ' || c == '=' || c == '"' || c < 0x20
	}
	return t
}()

func textNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if textQuoted[c] {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s escaped as slog's JSONHandler escapes
// strings (without the quotes): '"', '\\' and control characters, invalid
// UTF-8 as U+FFFD, and U+2028 and U+2029.
func appendJSONString(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// appendJSONFloat appends f as encoding/json marshals a float64, which is
// what slog's JSONHandler calls.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := f
	if abs < 0 {
		abs = -abs
	}
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		if m := len(b) - n; m >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b
}

// accessOutput is the output and format of a logger NewLogger made, for
// the access lines the middleware writes there itself.
type accessOutput struct {
	json     bool
	buffered *LogWriter // the output, when it batches access lines
	mu       sync.Mutex // one line at a time to an output that does not
	w        io.Writer
}

func newAccessOutput(w io.Writer, json bool) *accessOutput {
	o := &accessOutput{w: w, json: json}
	o.buffered, _ = w.(*LogWriter)
	return o
}

// accessOutputOf is the output of log when NewLogger made it, else nil.
func accessOutputOf(log *slog.Logger) *accessOutput {
	if h, ok := log.Handler().(contextHandler); ok {
		return h.access
	}
	return nil
}

// lineBuffers hold the lines written to outputs that are not LogWriters.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// write writes a's line: into the batch of a LogWriter, or at once, in
// one Write, to any other output.
func (o *accessOutput) write(a *accessLine) {
	if o.buffered != nil {
		o.writeBuffered(a)
		return
	}
	bp := lineBuffers.Get().(*[]byte)
	b := a.appendTo((*bp)[:0], o.json)
	o.mu.Lock()
	_, _ = o.w.Write(b)
	o.mu.Unlock()
	*bp = b
	lineBuffers.Put(bp)
}

// writeBuffered encodes a's line on the stack, outside the LogWriter's
// lock, which is then held only to copy it: every request takes that lock.
func (o *accessOutput) writeBuffered(a *accessLine) {
	var line [512]byte // a longer line grows onto the heap
	o.buffered.appendLine(a.appendTo(line[:0], o.json))
}

func (a *accessLine) appendTo(b []byte, json bool) []byte {
	if json {
		return a.appendJSON(b)
	}
	return a.appendText(b)
}

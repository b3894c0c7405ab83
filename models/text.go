package models

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// truncate cuts s to at most n bytes, for free text stored in sized
// columns (client addresses, flash messages, delivery errors), dropping a
// character the cut would split.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// textProblem is the one rule for text that reaches the database, a log or
// another system: valid UTF-8 and no control characters. PostgreSQL refuses
// NUL and invalid UTF-8 in text columns (SQLite stores them), so without
// this rule the same request is a 400 on one database and a 500 on the
// other; and control characters in names end up in terminals, headers and
// HTML. Multi-line text (descriptions, comments) may hold line breaks and
// tabs, where a form's textarea sends CRLF. It returns what is wrong, or "".
func textProblem(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	at := strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\r' || r == '\t'))
	})
	if at < 0 {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(s[at:])
	if multiline {
		return fmt.Sprintf("must not contain control characters other than line breaks and tabs (found %U)", r)
	}
	return fmt.Sprintf("must not contain control characters (found %U)", r)
}

// checkLine adds a field error when the single-line text s breaks the
// text rule; it reports whether s is acceptable.
func checkLine(f *FieldErrors, field, s string) bool {
	if msg := textProblem(s, false); msg != "" {
		f.Add(field, msg)
		return false
	}
	return true
}

// checkMultiline is checkLine for text that may span lines.
func checkMultiline(f *FieldErrors, field, s string) bool {
	if msg := textProblem(s, true); msg != "" {
		f.Add(field, msg)
		return false
	}
	return true
}

package models

import "unicode/utf8"

// maxJSONExpansion is the most bytes JSON writes for one byte of text:
// "<" becomes \u003c.
const maxJSONExpansion = 6

// jsonTextLen is how many bytes encoding/json writes for s between its
// quotes, escaping as the API's answers do: HTML-safe (<, >, & as
// \u003c...), control characters, invalid UTF-8 as \ufffd, and U+2028
// and U+2029. Budgets of what the API sends count this, not len(s): a
// text of "<" is six times longer on the wire.
func jsonTextLen(s string) int64 {
	var n int64
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t' || b == '\b' || b == '\f':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += maxJSONExpansion
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += maxJSONExpansion
		default:
			n += int64(size)
		}
		i += size
	}
	return n
}

// plainJSONText splits s after a JSON string's text and its closing
// quote, when the text needs no unescaping: no backslash, no control
// character, valid UTF-8.
func plainJSONText(s string) (text, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return s[:i], s[i+1:], utf8.ValidString(s[:i])
		case c < 0x20 || c == '\\':
			return "", "", false
		}
	}
	return "", "", false
}

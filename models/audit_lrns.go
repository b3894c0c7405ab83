package models

import (
	"encoding/json"
	"strings"
)

// decodeAuditLRNs reads a stored resource_lrns column, a JSON array of
// strings, as json.Unmarshal would into a nil []string. Names are LRNs, so
// nearly every stored array is plain: plainAuditLRNs reads those without
// reflection in one allocation for all the names; anything else (escapes,
// null, malformed text) is left to json.Unmarshal, so the result is always
// exactly its result.
func decodeAuditLRNs(raw []byte) ([]string, error) {
	if lrns, ok := plainAuditLRNs(raw); ok {
		return lrns, nil
	}
	var lrns []string
	err := json.Unmarshal(raw, &lrns)
	return lrns, err
}

// plainAuditLRNs reads raw when it is a JSON array whose strings each
// stand for themselves: no backslash, no control character, valid UTF-8.
// It reports false for any other text. The names share one string.
func plainAuditLRNs(raw []byte) ([]string, bool) {
	s := string(raw)
	i := skipJSONSpace(s, 0)
	if i == len(s) || s[i] != '[' {
		return nil, false
	}
	out := make([]string, 0, strings.Count(s, `"`)/2)
	if i = skipJSONSpace(s, i+1); i < len(s) && s[i] == ']' {
		return out, skipJSONSpace(s, i+1) == len(s)
	}
	for {
		if i == len(s) || s[i] != '"' {
			return nil, false
		}
		// Invalid UTF-8 is refused too: json.Unmarshal would replace it.
		name, rest, ok := plainJSONText(s[i+1:])
		if !ok {
			return nil, false
		}
		out = append(out, name)
		switch i = skipJSONSpace(s, len(s)-len(rest)); {
		case i == len(s):
			return nil, false
		case s[i] == ']':
			return out, skipJSONSpace(s, i+1) == len(s)
		case s[i] != ',':
			return nil, false
		}
		i = skipJSONSpace(s, i+1)
	}
}

// skipJSONSpace returns the index of the first byte of s at or after i
// that is not JSON whitespace.
func skipJSONSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

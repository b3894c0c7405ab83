package models

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeRules decodes a ruleset's stored rules exactly as json.Unmarshal
// into a []FirewallRule does (GORM's serializer did that), but reads the
// form json.Marshal writes them in without reflection, in three
// allocations whatever the number of rules (the strings are cut from one
// copy of data) and one more per string with escapes. Anything else
// (other field orders, spaces, surrogate escapes) is left to
// json.Unmarshal.
func decodeRules(data []byte) ([]FirewallRule, error) {
	if rules, ok := decodeMarshaledRules(data); ok {
		return rules, nil
	}
	var rules []FirewallRule
	err := json.Unmarshal(data, &rules)
	return rules, err
}

// ruleDecoder reads rules in json.Marshal's form from text, reporting
// failure on anything else.
type ruleDecoder struct {
	text  string
	at    int
	rules int   // how many rules the text appears to hold, to size slices
	ports []int // backing store of every rule's port range
}

func decodeMarshaledRules(data []byte) ([]FirewallRule, bool) {
	if string(data) == "null" {
		return nil, true
	}
	d := ruleDecoder{text: string(data)}
	if !d.skip("[") {
		return nil, false
	}
	d.rules = strings.Count(d.text, `{"protocol":`)
	rules := make([]FirewallRule, 0, d.rules)
	ok := d.elements(func() bool {
		r, ok := d.rule()
		rules = append(rules, r)
		return ok
	})
	return rules, ok && d.at == len(d.text)
}

func (d *ruleDecoder) rule() (r FirewallRule, ok bool) {
	if !d.skip(`{"protocol":`) {
		return r, false
	}
	if r.Protocol, ok = d.string(); !ok {
		return r, false
	}
	if d.skip(`,"port_range":[`) {
		if r.PortRange, ok = d.ints(); !ok {
			return r, false
		}
	}
	if !d.skip(`,"source_network":`) {
		return r, false
	}
	if r.SourceNetwork, ok = d.string(); !ok || !d.skip(`,"description":`) {
		return r, false
	}
	if r.Description, ok = d.string(); !ok || !d.skip("}") {
		return r, false
	}
	return r, true
}

// skip consumes s if the text continues with it.
func (d *ruleDecoder) skip(s string) bool {
	if len(d.text)-d.at < len(s) || d.text[d.at:d.at+len(s)] != s {
		return false
	}
	d.at += len(s)
	return true
}

// string reads a string of valid UTF-8 without control characters, as
// json.Marshal writes them. One without escapes is cut from the text; one
// with escapes other than of UTF-16 surrogates is unescaped into a string
// of its own, as json.Unmarshal unescapes it.
func (d *ruleDecoder) string() (string, bool) {
	if !d.skip(`"`) {
		return "", false
	}
	start, escaped := d.at, false
	for ; d.at < len(d.text); d.at++ {
		switch b := d.text[d.at]; {
		case b == '"':
			raw := d.text[start:d.at]
			d.at++
			if !utf8.ValidString(raw) {
				return "", false
			}
			if escaped {
				return unescape(raw)
			}
			return raw, true
		case b == '\\':
			escaped = true
			d.at++ // the escaped byte is never the closing quote
		case b < 0x20:
			return "", false
		}
	}
	return "", false
}

// unescape decodes the escapes of a JSON string's contents, reporting
// failure on a malformed escape or a UTF-16 surrogate (which pairs or
// becomes U+FFFD: left to json.Unmarshal).
func unescape(raw string) (string, bool) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			out = append(out, raw[i])
			continue
		}
		i++
		if i == len(raw) {
			return "", false
		}
		switch c := raw[i]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+5 > len(raw) {
				return "", false
			}
			r, err := strconv.ParseUint(raw[i+1:i+5], 16, 16)
			if err != nil || utf16.IsSurrogate(rune(r)) {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			i += 4
		default:
			return "", false
		}
	}
	return string(out), true
}

// ints reads the integers of an array whose '[' is consumed, through its
// ']'; an empty array is an empty slice, as json.Unmarshal makes it.
func (d *ruleDecoder) ints() ([]int, bool) {
	if d.ports == nil {
		d.ports = make([]int, 0, 2*d.rules) // a range is two ports
	}
	start := len(d.ports)
	ok := d.elements(func() bool {
		n, ok := d.int()
		d.ports = append(d.ports, n)
		return ok
	})
	return d.ports[start:len(d.ports):len(d.ports)], ok
}

// elements reads the comma-separated elements of an array whose '[' is
// consumed, each by element, through its ']'.
func (d *ruleDecoder) elements(element func() bool) bool {
	for first := true; !d.skip("]"); first = false {
		if !first && !d.skip(",") || !element() {
			return false
		}
	}
	return true
}

// int reads a JSON integer as json.Marshal writes one: an optional minus,
// then 0 or digits not starting with 0.
func (d *ruleDecoder) int() (int, bool) {
	start := d.at
	if d.at < len(d.text) && d.text[d.at] == '-' {
		d.at++
	}
	digits := d.at
	for d.at < len(d.text) && d.text[d.at] >= '0' && d.text[d.at] <= '9' {
		d.at++
	}
	if d.at == digits || (d.text[digits] == '0' && d.at-digits > 1) {
		return 0, false
	}
	n, err := strconv.Atoi(d.text[start:d.at])
	return n, err == nil
}

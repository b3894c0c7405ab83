package models

import "strings"

// truncate cuts s to at most n bytes, for free text stored in sized
// columns (client addresses, flash messages, delivery errors), dropping a
// character the cut would split.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
